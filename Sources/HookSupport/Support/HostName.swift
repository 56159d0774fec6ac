/// The short host name (up to the first dot).
package func shortHostName() -> String {
    // A stack buffer and the bytes read in place: no arrays on the hook path (each array type costs the
    // runtime ~10 K instructions to set up the first time).
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        buffer.initialize(repeating: 0)
        guard let base = buffer.baseAddress, gethostname(base, 255) == 0 else { return "localhost" }
        return shortHostName(UnsafeRawBufferPointer(start: base, count: strlen(base)))
    }
}

/// The host name in `bytes` up to its first dot: its first label as `split(separator: ".")` gives it
/// (empty labels skipped), or the whole name when it has none.
package func shortHostName(_ bytes: UnsafeRawBufferPointer) -> String {
    let name = String(decoding: bytes, as: UTF8.self)
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return name.split(separator: ".").first.map(String.init) ?? name }
    guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: ".") }) else { return name }
    let end = bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex
    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
}
