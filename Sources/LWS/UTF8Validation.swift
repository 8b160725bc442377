/// Checks that bytes are well-formed UTF-8 without building a `String`: text messages and close
/// reasons must be (RFC 6455 §8.1), and lws 4.1's own check misses some cases. Any thread.
enum UTF8Validation {
    static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid:
                continue
            case .emptyInput:
                return true
            case .error:
                return false
            }
        }
    }
}
