#pragma once
// Default options for sanitizer builds, compiled into each program's main
// translation unit so that they hold however the program is started:
// LeakSanitizer must not scan stacks, because SystemC's coroutine stacks are
// not thread stacks it can walk (it crashes on them); use-after-return
// detection is off for the same reason.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "detect_stack_use_after_return=0"; }
extern "C" const char* __lsan_default_options() { return "use_stacks=0"; }
#endif
