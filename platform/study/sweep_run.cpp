// Running a sweep: which points still need a run (resume), the local and
// slurm executors, and the summary gathered from the points' reports.
//
// A point's files in the output directory: point-NNN.json (its report,
// written whole by the child), .txt and .err (its output) and .exit (its exit
// status, written last and whole). A point is complete when its .exit says 0
// and its report reads as JSON; it failed when its .exit says anything else;
// otherwise it is missing and runs.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "process/process.hpp"
#include "report/report.hpp"
#include "study/pareto.hpp"
#include "study/progress.hpp"
#include "study/sweep.hpp"

namespace eva {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("eva-sim: ", 0) == 0) line = line.substr(9);
  return line.empty() ? "no message" : line;
}

// The directory's lock, held while a sweep writes it: two sweeps into one
// directory would run the same points twice and race on their files.
class DirLock {
 public:
  explicit DirLock(const fs::path& dir) {
    const std::string path = (dir / ".lock").string();
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) throw InputError(fmt::format("--out {}: cannot write", dir.string()));
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(m_fd);
      throw InputError(fmt::format("--out {}: another sweep is writing this directory", dir.string()));
    }
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock() { ::close(m_fd); }

 private:
  int m_fd = -1;
};

// A directory in an sbatch filename pattern: its own '%' taken literally.
std::string slurm_pattern(const fs::path& dir) {
  std::string out;
  for (const char c : dir.string()) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

// Runs a short helper command (sbatch, squeue, scontrol) with its output in
// files of `dir`; returns its exit status, stdout and stderr.
struct Ran {
  int status = 0;
  std::string out, err;
};
Ran run_tool(const std::vector<std::string>& argv, const fs::path& dir) {
  const fs::path out = dir / ".tool.out", err = dir / ".tool.err";
  Ran r;
  try {
    r.status = wait_process(spawn_process(argv, out.string(), err.string())).second;
  } catch (const std::runtime_error&) {
    throw InputError(
        fmt::format("--executor slurm: cannot run '{}' (is Slurm's client installed and on PATH?)", argv.front()));
  }
  r.out = read_text(out);
  r.err = read_text(err);
  std::error_code ec;
  fs::remove(out, ec);
  fs::remove(err, ec);
  return r;
}

class Sweep {
 public:
  Sweep(const SweepPlan& plan, const SweepOptions& options, fs::path out)
      : m_plan(plan), m_options(options), m_out(std::move(out)), m_n(plan.points()) {
    m_width = static_cast<int>(std::max<std::size_t>(3, std::to_string(m_n - 1).size()));
  }

  fs::path file(std::uint64_t i, const char* ext) const {
    return m_out / fmt::format("point-{:0{}}.{}", i, m_width, ext);
  }
  std::string number(std::uint64_t i) const { return fmt::format("{:0{}}", i, m_width); }

  // The exit status a point recorded, if any.
  std::optional<int> exit_of(std::uint64_t i) const {
    std::ifstream in(file(i, "exit"));
    int status = 0;
    if (in >> status) return status;
    return std::nullopt;
  }
  // Its report, when the point is complete (`status`: what its .exit says).
  std::optional<nlohmann::json> report_of(std::uint64_t i, std::optional<int> status) const {
    if (status != 0) return std::nullopt;
    nlohmann::json report = nlohmann::json::parse(read_text(file(i, "json")), nullptr, false);
    if (report.is_discarded() || !report.is_object()) return std::nullopt;
    return report;
  }

  void clear(std::uint64_t i) const {
    std::error_code ec;
    for (const char* ext : {"exit", "json", "txt", "err"}) fs::remove(file(i, ext), ec);
  }

  void record_exit(std::uint64_t i, int status) const {
    write_file_atomic(file(i, "exit").string(), fmt::format("{}\n", status));
  }

  std::vector<std::string> point_argv(std::uint64_t i, const std::string& program) const {
    std::vector<std::string> args = m_plan.arguments(i);
    args.insert(args.begin(), program);
    args.insert(args.end(), {"--json", file(i, "json").string(), "--quiet"});
    return args;
  }

  void run_local(const std::vector<std::uint64_t>& todo, Progress& progress) const {
    struct Child {
      pid_t pid;
      std::uint64_t point;
    };
    std::vector<Child> running;
    std::size_t next = 0;
    const std::size_t jobs = std::max(1u, m_options.jobs);
    bool stop = false;  // a point failed: no new ones start, unless keep_going
    try {
      while ((next < todo.size() && !stop) || !running.empty()) {
        while (next < todo.size() && !stop && running.size() < jobs) {
          const std::uint64_t i = todo[next++];
          running.push_back(
              {spawn_process(point_argv(i, m_options.program), file(i, "txt").string(), file(i, "err").string()), i});
        }
        const auto [pid, status] = wait_process();
        const auto it =
            std::find_if(running.begin(), running.end(), [pid = pid](const Child& c) { return c.pid == pid; });
        if (it == running.end()) continue;
        record_exit(it->point, status);
        running.erase(it);
        progress.step();
        stop = stop || (status != 0 && !m_options.keep_going);
      }
    } catch (...) {
      for (const Child& c : running) wait_process(c.pid);
      throw;
    }
  }

  // The Slurm job of an earlier run into this directory, if it still has
  // tasks queued or running: its tasks would write the points again.
  void refuse_running_job() const {
    const fs::path id_file = m_out / "slurm" / "job-id";
    if (!fs::exists(id_file)) return;
    const std::string id = first_line(read_text(id_file));
    try {
      const Ran q = run_tool({"squeue", "--noheader", "--jobs=" + id, "--format=%i"}, m_out);
      if (q.status == 0 && q.out.find_first_not_of(" \n") != std::string::npos)
        throw InputError(
            fmt::format("--out {}: Slurm job {} of an earlier run of this sweep is still queued or "
                        "running; wait for it or cancel it (scancel {})",
                        m_out.string(), id, id));
    } catch (const InputError& e) {
      if (std::string(e.what()).find("still queued") != std::string::npos) throw;
      // No Slurm client here: nothing of this machine's can be running.
    }
  }

  // Submits the points as one job array and waits for it, polling squeue.
  // Returns, per point whose task ended without its .exit, what Slurm says.
  std::map<std::uint64_t, std::string> run_slurm(const std::vector<std::uint64_t>& todo, Progress& progress) const {
    const SlurmSettings& s = m_options.slurm;
    const std::uint64_t per_task = std::max<std::uint64_t>(1, s.points_per_task);
    const std::uint64_t tasks = (todo.size() + per_task - 1) / per_task;
    const fs::path dir = m_out / "slurm";
    std::error_code ec;
    fs::create_directories(dir, ec);
    for (const auto& entry : fs::directory_iterator(dir, ec))  // the task logs of an earlier run
      if (entry.path().filename().string().rfind("task-", 0) == 0) fs::remove(entry.path(), ec);
    const fs::path script = dir / "job.sh";
    write_file_atomic(
        script.string(),
        slurm_batch_script(m_plan, todo, per_task, s.program.empty() ? m_options.program : s.program, m_out.string()));
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    std::vector<std::string> argv = {
        "sbatch",
        "--parsable",
        "--job-name=eva-sweep",
        fmt::format("--array=0-{}{}", tasks - 1, m_options.jobs ? fmt::format("%{}", m_options.jobs) : ""),
        "--output=" + slurm_pattern(dir) + "/task-%a.out",
        "--error=" + slurm_pattern(dir) + "/task-%a.err"};
    if (!s.partition.empty()) argv.push_back("--partition=" + s.partition);
    if (!s.time.empty()) argv.push_back("--time=" + s.time);
    argv.insert(argv.end(), s.sbatch_options.begin(), s.sbatch_options.end());
    argv.push_back(script.string());
    const Ran submitted = run_tool(argv, dir);
    if (submitted.status != 0)
      throw InputError(fmt::format("--executor slurm: sbatch refused the job: {}", first_line(submitted.err)));
    const std::string id = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error(fmt::format("--executor slurm: sbatch printed no job id: '{}'", submitted.out));
    write_file_atomic((dir / "job-id").string(), id + "\n");

    // Wait: squeue lists the array's tasks until the last one ends.
    std::vector<bool> seen(todo.size(), false);
    int errors = 0;
    for (;;) {
      std::this_thread::sleep_for(std::chrono::duration<double>(m_options.poll_seconds));
      for (std::size_t k = 0; k < todo.size(); ++k)
        if (!seen[k] && exit_of(todo[k])) {
          seen[k] = true;
          progress.step();
        }
      const Ran q = run_tool({"squeue", "--noheader", "--jobs=" + id, "--format=%i"}, dir);
      if (q.status == 0) {
        errors = 0;
        if (q.out.find_first_not_of(" \n") == std::string::npos) break;
      } else if (q.err.find("Invalid job id") != std::string::npos) {
        break;  // already purged from the controller: ended
      } else if (++errors == 20) {
        throw std::runtime_error(fmt::format("--executor slurm: squeue keeps failing: {}", first_line(q.err)));
      }
    }

    // What became of each task, for the points whose task left no status.
    std::map<std::uint64_t, std::string> task_state;
    const Ran shown = run_tool({"scontrol", "show", "job", id}, dir);
    std::istringstream records(shown.out);
    std::string word;
    std::optional<std::uint64_t> task;
    while (records >> word) {
      if (word.rfind("ArrayTaskId=", 0) == 0) {
        const std::string v = word.substr(12);
        task = v.find_first_not_of("0123456789") == std::string::npos && !v.empty()
                   ? std::optional<std::uint64_t>(std::stoull(v))
                   : std::nullopt;
      } else if (task && word.rfind("JobState=", 0) == 0) {
        task_state[*task] = word.substr(9);
      }
    }
    std::map<std::uint64_t, std::string> lost;
    for (std::size_t k = 0; k < todo.size(); ++k) {
      if (exit_of(todo[k])) continue;
      const std::uint64_t t = k / per_task;
      const auto st = task_state.find(t);
      const std::string err = read_text(dir / fmt::format("task-{}.err", t));
      lost[todo[k]] =
          fmt::format("Slurm task {} of job {} ended ({}) before this point finished{}", t, id,
                      st == task_state.end() ? "state unknown" : st->second, err.empty() ? "" : ": " + first_line(err));
    }
    return lost;
  }

  SweepResult run() {
    // Whose directory is this? Its points are only ours if the plan is.
    const fs::path plan_file = m_out / "sweep-plan.json";
    const nlohmann::ordered_json identity = m_plan.identity();
    if (fs::exists(plan_file)) {
      const nlohmann::json before = nlohmann::json::parse(read_text(plan_file), nullptr, false);
      if (before.is_discarded() || nlohmann::json(identity) != before) {
        if (!m_options.force)
          throw InputError(
              fmt::format("--out {}: holds the points of a different sweep (the file changed since, or "
                          "another file wrote it); use another --out, or --force to start over",
                          m_out.string()));
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(m_out, ec)) {
          const std::string name = entry.path().filename().string();
          if (name.rfind("point-", 0) == 0 || name.rfind("sweep.", 0) == 0) fs::remove(entry.path(), ec);
        }
      }
    }
    refuse_running_job();
    write_file_atomic(plan_file.string(), identity.dump(2) + "\n");

    SweepResult result;
    std::vector<std::uint64_t> todo;
    for (std::uint64_t i = 0; i < m_n; ++i) {
      const std::optional<int> status = exit_of(i);
      if (report_of(i, status) || (status && *status != 0 && !m_options.retry_failed)) continue;
      clear(i);
      todo.push_back(i);
    }
    result.ran = todo.size();
    std::map<std::uint64_t, std::string> lost;
    {
      Progress progress("sweep", todo.size(), m_options.quiet);
      if (!todo.empty()) {
        if (m_options.executor == Executor::local)
          run_local(todo, progress);
        else
          lost = run_slurm(todo, progress);
      }
    }
    gather(result, lost, todo);
    return result;
  }

  void gather(SweepResult& result, const std::map<std::uint64_t, std::string>& lost,
              const std::vector<std::uint64_t>& todo) const {
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const SweepAxis& a : m_plan.axes)
      axes.push_back({{"key", a.key}, {"set", a.is_set}, {"dimension", a.dimension}});
    nlohmann::ordered_json index = {{"sweep", m_plan.source},
                                    {"command", m_plan.command},
                                    {"axes", axes},
                                    {"points", nlohmann::ordered_json::array()},
                                    {"failed", nlohmann::ordered_json::array()},
                                    {"not_run", nlohmann::ordered_json::array()}};
    std::vector<std::size_t> row_point;  // rows' entries in index["points"]
    for (std::uint64_t i = 0; i < m_n; ++i) {
      const nlohmann::ordered_json values = sweep_values(m_plan, i);
      const std::optional<int> status = exit_of(i);
      if (const std::optional<nlohmann::json> report = report_of(i, status)) {
        if (!std::binary_search(todo.begin(), todo.end(), i)) ++result.kept;
        const std::vector<nlohmann::ordered_json> rows = sweep_rows(m_plan, i, *report);
        index["points"].push_back({{"point", i},
                                   {"values", values},
                                   {"arguments", m_plan.arguments(i)},
                                   {"json", file(i, "json").filename().string()},
                                   {"rows", rows}});
        for (std::size_t r = 0; r < rows.size(); ++r) row_point.push_back(index["points"].size() - 1);
        result.rows.insert(result.rows.end(), rows.begin(), rows.end());
        continue;
      }
      if (!status && !lost.count(i)) {  // not started: the sweep stopped at a failure
        ++result.not_run;
        index["not_run"].push_back(i);
        continue;
      }
      FailedPoint f;
      f.point = i;
      if (const auto l = lost.find(i); l != lost.end()) {
        f.message = l->second;
      } else if (status && *status != 0) {
        f.status = *status;
        f.message = first_line(read_text(file(i, "err")));
      } else {
        f.message = "its report is missing or not JSON";
      }
      index["failed"].push_back({{"point", i},
                                 {"values", values},
                                 {"arguments", m_plan.arguments(i)},
                                 {"status", f.status},
                                 {"error", f.message}});
      result.failed.push_back(std::move(f));
    }
    // Ratios against the baselines, in the rows and in the index alike.
    for (const std::string& b : m_options.baselines) {
      if (add_baseline_ratios(result.rows, m_plan, b) == 0) continue;
      std::vector<std::size_t> seen(index["points"].size(), 0);
      for (std::size_t r = 0; r < result.rows.size(); ++r) {
        auto& row = index["points"][row_point[r]]["rows"][seen[row_point[r]]++];
        for (const std::string& key : {"speedup_vs_" + b, "energy_efficiency_vs_" + b})
          if (result.rows[r].contains(key)) row[key] = result.rows[r][key];
      }
    }
    // The Pareto front over the default objectives, where the rows have them.
    const std::vector<Objective> objectives = default_objectives();
    if (const std::optional<std::vector<bool>> front = pareto_front(result.rows, objectives)) {
      std::vector<std::size_t> seen(index["points"].size(), 0);
      for (std::size_t r = 0; r < result.rows.size(); ++r) {
        result.rows[r]["pareto"] = static_cast<bool>((*front)[r]);
        index["points"][row_point[r]]["rows"][seen[row_point[r]]++]["pareto"] = static_cast<bool>((*front)[r]);
      }
      index["pareto"] = {{"objectives", objectives_json(objectives)},
                         {"front", std::count(front->begin(), front->end(), true)}};
    }
    write_file_atomic((m_out / "sweep.csv").string(), rows_csv(result.rows));
    write_file_atomic((m_out / "sweep.json").string(), index.dump(2) + "\n");
    result.index = std::move(index);
  }

 private:
  const SweepPlan& m_plan;
  const SweepOptions& m_options;
  fs::path m_out;
  std::uint64_t m_n;
  int m_width = 3;
};

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurm_batch_script(const SweepPlan& plan, const std::vector<std::uint64_t>& points, std::uint64_t per_task,
                               const std::string& program, const std::string& out_dir) {
  per_task = std::max<std::uint64_t>(1, per_task);
  const std::uint64_t n = plan.points();
  const int width = static_cast<int>(std::max<std::size_t>(3, std::to_string(n - 1).size()));
  std::string s = fmt::format(
      "#!/bin/bash\n"
      "# Written by eva-sim sweep for {}: array task T runs its points one after another.\n"
      "# Every value below is single-quoted; nothing from the sweep file is shell code.\n"
      "set -u\n"
      "out={}\n"
      "# run_point NNN PROGRAM ARG...: one point; its exit status is written last, whole.\n"
      "run_point() {{\n"
      "  local n=$1\n"
      "  shift\n"
      "  \"$@\" >\"$out/point-$n.txt\" 2>\"$out/point-$n.err\"\n"
      "  local status=$?\n"
      "  printf '%d\\n' \"$status\" >\"$out/point-$n.exit.tmp\" && mv -f \"$out/point-$n.exit.tmp\" "
      "\"$out/point-$n.exit\"\n"
      "}}\n"
      "case \"${{SLURM_ARRAY_TASK_ID:-}}\" in\n",
      plan.source.find('\n') == std::string::npos ? plan.source : "a sweep", shell_quote(out_dir));
  for (std::uint64_t t = 0; t * per_task < points.size(); ++t) {
    s += fmt::format("  {})\n", t);
    for (std::uint64_t k = t * per_task; k < std::min<std::uint64_t>(points.size(), (t + 1) * per_task); ++k) {
      const std::uint64_t i = points[k];
      const std::string num = fmt::format("{:0{}}", i, width);
      std::vector<std::string> argv = plan.arguments(i);
      argv.insert(argv.begin(), program);
      argv.insert(argv.end(), {"--json", out_dir + "/point-" + num + ".json", "--quiet"});
      s += "    run_point " + num;
      for (const std::string& a : argv) s += " " + shell_quote(a);
      s += "\n";
    }
    s += "    ;;\n";
  }
  s += "  *)\n    echo \"eva-sweep: no task ${SLURM_ARRAY_TASK_ID:-(none)} in this array\" >&2\n    exit 2\n    ;;\n";
  s += "esac\n";
  return s;
}

SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& options) {
  std::error_code ec;
  fs::path out(options.out);
  fs::create_directories(out, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot create directory: {}", options.out, ec.message()));
  if (!fs::is_directory(out)) throw InputError(fmt::format("--out {}: not a directory", options.out));
  out = fs::absolute(out, ec).lexically_normal();
  if (out.has_filename() == false) out = out.parent_path();
  const DirLock lock(out);
  Sweep sweep(plan, options, out);
  return sweep.run();
}

}  // namespace eva
