#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the `slurm` sweep executor's
# tests and for trying it out (docs/SWEEP.md). Uses Debian's slurm-wlm and munge,
# no systemd: munged (its own key and socket directory), then slurmctld, then
# slurmd, each started as a plain foreground command in the background whose PID
# is recorded in the state directory and stopped by that PID.
#   scripts/slurm-local.sh up      start it (does nothing if it is already up)
#   scripts/slurm-local.sh down    stop it and remove its state
#   scripts/slurm-local.sh env     print the variable clients need (SLURM_CONF=...)
# State, spool, logs and slurm.conf live under $EVA_SLURM_DIR (default
# ${TMPDIR:-/tmp}/eva-slurm). Clients (sbatch, squeue, scontrol, and eva-sim's
# slurm executor, which calls them) find the cluster through SLURM_CONF.
# The ports are EVA_SLURM_PORT and the next one (default 6917, 6918).
set -euo pipefail

usage() { echo "usage: scripts/slurm-local.sh up|down|env" >&2; exit 2; }
(($# == 1)) || usage
dir=${EVA_SLURM_DIR:-${TMPDIR:-/tmp}/eva-slurm}
port=${EVA_SLURM_PORT:-6917}
[[ $port =~ ^[0-9]+$ ]] || { echo "slurm-local: EVA_SLURM_PORT '$port' is not a port number" >&2; exit 2; }
conf=$dir/slurm.conf

alive() { [[ -f $dir/$1.pid ]] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

stop() {  # stop a daemon by its recorded PID, waiting up to 10 s
  local name=$1 pid
  [[ -f $dir/$name.pid ]] || return 0
  pid=$(cat "$dir/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/$name.pid"
}

wait_for() {  # wait_for WHAT SECONDS COMMAND...: until COMMAND succeeds
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq $((seconds * 10))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "slurm-local: $what did not come up in ${seconds} s; logs in $dir" >&2
  return 1
}

up() {
  if alive munged && alive slurmctld && alive slurmd; then
    echo "slurm-local: already up ($conf)"
    return 0
  fi
  for tool in munged mungekey slurmctld slurmd scontrol sinfo; do
    command -v "$tool" >/dev/null || { echo "slurm-local: '$tool' is not installed (scripts/setup.sh installs slurm-wlm and munge)" >&2; exit 2; }
  done
  # A half-started cluster from before: start over.
  stop slurmd; stop slurmctld; stop munged
  mkdir -p "$dir"/{munge,state,spool,log}
  chmod 755 "$dir/munge"  # munged refuses a socket directory others may write
  chmod 700 "$dir/state" "$dir/spool"
  local user host cpus mem
  user=$(id -un)
  host=$(hostname -s)

  [[ -f $dir/munge.key ]] || mungekey --create --keyfile="$dir/munge.key" --bits=1024
  chmod 600 "$dir/munge.key"
  munged --foreground --force --key-file="$dir/munge.key" --socket="$dir/munge/munge.socket.2" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" --log-file="$dir/log/munged.log" \
    >>"$dir/log/munged.out" 2>&1 &
  echo $! >"$dir/munged.pid"
  wait_for munged 10 test -S "$dir/munge/munge.socket.2"

  # The node as slurmd sees it: CPUs, sockets, cores, threads and memory.
  local node
  node=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
  cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: a single-node cluster for tests.
ClusterName=eva-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/slurmd-%n
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MaxArraySize=100001
MaxJobCount=100000
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$conf
  slurmctld -D -i -f "$conf" >>"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/slurmctld.pid"
  wait_for slurmctld 20 scontrol ping
  slurmd -D -f "$conf" >>"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/slurmd.pid"
  node_idle() { sinfo -h -N -o '%t' | grep -qx 'idle'; }
  wait_for slurmd 20 node_idle
  echo "slurm-local: up; export SLURM_CONF=$conf"
}

down() {
  stop slurmd; stop slurmctld; stop munged
  rm -rf "$dir"
  echo "slurm-local: down"
}

case $1 in
  up) up ;;
  down) down ;;
  env) echo "SLURM_CONF=$conf" ;;
  *) usage ;;
esac
