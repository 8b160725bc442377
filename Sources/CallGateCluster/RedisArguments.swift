/// hiredis's `argv`/`argvlen` for one command, built over a single buffer that lives for the
/// call only (hiredis formats the command into its output buffer before it returns).
enum RedisArguments {
    static func withArgv<Result>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        for argument in arguments {
            bytes.append(contentsOf: argument)
        }
        bytes.append(0)
        var lengths = arguments.map(\.count)
        lengths.append(0)
        return bytes.withUnsafeBufferPointer { buffer in
            // Never empty: it ends with a 0 added above.
            let base = UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: CChar.self)
            var pointers: [UnsafePointer<CChar>?] = []
            pointers.reserveCapacity(lengths.count)
            var offset = 0
            for length in lengths {
                pointers.append(base + offset)
                offset += length
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    body(Int32(arguments.count), argv.baseAddress.unsafelyUnwrapped, argvlen.baseAddress.unsafelyUnwrapped)
                }
            }
        }
    }
}
