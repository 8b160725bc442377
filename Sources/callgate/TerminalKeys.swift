import Foundation

/// Single key presses from standard input, on a thread of their own.
///
/// On a terminal it switches off line buffering and echo (Ctrl-C still raises SIGINT) and puts
/// the terminal back with `restore`; from a pipe it reads the characters as they come.
final class TerminalKeys: @unchecked Sendable {
    private var saved: termios?
    private let lock = NSLock()

    /// Starts reading; `onKey` runs on the reader thread for each character until end of input.
    func start(onKey: @escaping @Sendable (Character) -> Void) {
        if isatty(STDIN_FILENO) == 1 {
            var settings = termios()
            tcgetattr(STDIN_FILENO, &settings)
            lock.withLock { saved = settings }
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
        let thread = Thread {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                onKey(Character(UnicodeScalar(byte)))
            }
        }
        thread.name = "keys"
        thread.start()
    }

    /// Puts the terminal back as it was.
    func restore() {
        lock.withLock {
            guard var settings = saved else { return }
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            saved = nil
        }
    }
}
