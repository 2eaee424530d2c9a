#pragma once
// Default options for sanitizer builds, compiled into each program's main
// translation unit so that they hold however the program is started:
// LeakSanitizer must not scan stacks, because SystemC's coroutine stacks are
// not thread stacks it can walk (it crashes on them); use-after-return
// detection is off for the same reason. GCC says ASan is on with
// __SANITIZE_ADDRESS__, clang with __has_feature (the fuzz build).
#if defined(__SANITIZE_ADDRESS__)
#define EVA_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EVA_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(EVA_ADDRESS_SANITIZER)
extern "C" const char* __asan_default_options() { return "detect_stack_use_after_return=0"; }
extern "C" const char* __lsan_default_options() { return "use_stacks=0"; }
#endif
