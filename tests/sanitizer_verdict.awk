# sanitizer_verdict.awk: reads a program's stderr and prints one verdict per
# sanitizer report in it: "library: FRAME" when the faulting frame (the
# first one outside libc and the sanitizer runtime, interceptors such as
# malloc and memcpy included) lies in libhdf5 or libfclib, whose crashes on
# damaged files mcbench contains by reading them in an isolated child;
# "mcbench: FRAME" otherwise, and for every UBSan report (the libraries are
# not instrumented, so UBSan only ever reports our code). Used by
# tests/test_corrupt.sh and scripts/fuzz.sh.
function runtime(line) {
    return line ~ /interceptor|sysdeps|libc\.so|libasan|libubsan|liblsan|libsanitizer|compiler-rt|libclang_rt|__asan|__ubsan|__lsan|libFuzzer|fuzzer::/ ||
           line ~ / in (malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|strlen|strcmp|strncmp|strcpy|operator new)[ (]/
}
/runtime error:/ { print "mcbench: UBSan: " $0; open = 0; next }
/ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)/ { open = 1; next }
/^(Direct|Indirect) leak of/ { open = 1; next }
open && /^ *#[0-9]+ / {
    if (runtime($0)) next
    frame = $0
    sub(/^ *#[0-9]+ 0x[0-9a-f]+ /, "", frame)
    sub(/ \(BuildId.*/, "", frame)
    print ((frame ~ /libhdf5|libfclib/) ? "library: " : "mcbench: ") frame
    open = 0
}
