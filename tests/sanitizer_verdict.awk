# sanitizer_verdict.awk: reads a program's stderr and prints one verdict per
# sanitizer report in it: "library: FRAME" when the fault lies in libhdf5 or
# libfclib, whose crashes on damaged files mcbench contains by reading them
# in an isolated child; "mcbench: FRAME" otherwise. The faulting frame is the
# first one outside libc and the sanitizer runtime (interceptors such as
# malloc and memcpy included). A memory error in a library on memory that
# mcbench allocated (a buffer too small for what the library writes) counts
# as mcbench's, as does every UBSan report (the libraries are not
# instrumented, so UBSan only ever reports our code) and every leak whose
# allocation is ours. The fuzzing target's own report of a live heap over
# its limit (tests/fuzz/fuzz_readers.c) is judged by the allocation that
# crossed it, and the abort() that ends it is not a second report. An
# out-of-memory report of libFuzzer's RSS limit names no allocation (its
# stacks are those of whatever is still live, often only libFuzzer's copy
# of the input): "unattributed". Used by tests/test_corrupt.sh and
# scripts/fuzz.sh.
function runtime(line) {
    return line ~ /interceptor|sysdeps|libc\.so|libasan|libubsan|liblsan|libsanitizer|compiler-rt|libclang_rt|__sanitizer|__asan|__ubsan|__lsan|libFuzzer|fuzzer::|fuzz_heap_/ ||
           line ~ / in (malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|strlen|strcmp|strncmp|strcpy|operator new)[ (]/
}
function frame_of(line,    f) {
    f = line
    sub(/^ *#[0-9]+ 0x[0-9a-f]+ /, "", f)
    sub(/ \(BuildId.*/, "", f)
    return f
}
function is_library(f) { return f ~ /libhdf5|libfclib/ }
function flush() {
    if (open && fault != "") {
        if (!is_library(fault)) print "mcbench: " fault
        else if (alloc != "" && !is_library(alloc)) print "mcbench: " alloc " (memory of mcbench, faulted on in " fault ")"
        else print "library: " fault
    }
    open = 0; fault = ""; alloc = ""; mode = ""
}
function unattributed(what) { print "unattributed: " what; open = 0 }
/runtime error:/ { flush(); print "mcbench: UBSan: " $0; next }
/ERROR: fuzz target:/ { flush(); open = 1; mode = "fault"; own_abort = 1; next }
/ERROR: libFuzzer: deadly signal/ && own_abort { flush(); own_abort = 0; next }
/ERROR: libFuzzer: out-of-memory \(used:/ { flush(); unattributed("libFuzzer RSS limit, no allocation named"); next }
/ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer|UndefinedBehaviorSanitizer)/ { flush(); open = 1; mode = "fault"; next }
/^(Direct|Indirect) leak of/ { flush(); open = 1; mode = "fault"; next }
/(allocated|freed) by thread/ { if (open) mode = "alloc"; next }
/^SUMMARY:/ { flush(); next }
open && /^ *#[0-9]+ / {
    if (runtime($0)) next
    if (mode == "fault" && fault == "") fault = frame_of($0)
    else if (mode == "alloc" && alloc == "") alloc = frame_of($0)
    next
}
open && /^$/ && fault != "" && mode == "fault" && alloc == "" { next }
END { flush() }
