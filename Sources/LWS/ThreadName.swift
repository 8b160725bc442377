#if canImport(Glibc)
import Glibc
#endif

/// The name the kernel shows for a thread (`/proc/PID/task/TID/comm`, `top -H`, `perf`): at most
/// 15 bytes. Foundation's `Thread.name` does not reach the kernel on Linux, where a new thread
/// keeps the name of the thread that made it, so each long-lived thread names itself first.
/// `tools/bench` splits a server's CPU by these names.
public enum ThreadName {
    /// Names the calling thread `name`, cut to its first 15 bytes, through
    /// `/proc/thread-self/comm` (Glibc's module does not export `pthread_setname_np`). Nothing
    /// happens where that file cannot be written.
    public static func set(_ name: String) {
        #if canImport(Glibc)
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        defer { close(file) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        #endif
    }
}
