/// What a Linux binary needs from the host it runs on, read from its own ELF headers: the machine
/// it was built for, the shared libraries it links (`DT_NEEDED`) and the newest glibc symbol
/// version it uses (`.gnu.version_r`). `deploy` checks a host against these before copying.
package struct ELFRequirements: Sendable, Equatable {
    /// `uname -m` of the machine the binary runs on: `x86_64`, `aarch64`, …
    package var machine: String
    package var neededLibraries: [String]
    /// The highest `GLIBC_x.y[.z]` version the binary references, as numbers; nil when none.
    package var glibc: [Int]?

    package var glibcText: String? { glibc.map { $0.map(String.init).joined(separator: ".") } }

    /// Parses a 64-bit little-endian ELF file's section headers; nil when `bytes` is not one.
    package init?(bytes: [UInt8]) {
        guard bytes.count >= 64, bytes[0] == 0x7f, bytes[1] == 0x45, bytes[2] == 0x4c, bytes[3] == 0x46,
              bytes[4] == 2 /* 64-bit */, bytes[5] == 1 /* little-endian */ else { return nil }
        func u16(_ at: Int) -> Int? { at + 2 <= bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : nil }
        func u32(_ at: Int) -> Int? {
            guard at + 4 <= bytes.count else { return nil }
            return (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        func u64(_ at: Int) -> Int? {
            guard at + 8 <= bytes.count, bytes[at + 7] & 0x80 == 0 else { return nil }
            return (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        func cString(_ at: Int) -> String? {
            guard at >= 0, at < bytes.count else { return nil }
            var end = at
            while end < bytes.count, bytes[end] != 0 { end += 1 }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }
        guard let machineCode = u16(18), let sectionOffset = u64(40), let entrySize = u16(58),
              let sectionCount = u16(60), entrySize >= 64 else { return nil }
        switch machineCode {
        case 62: machine = "x86_64"
        case 183: machine = "aarch64"
        case 243: machine = "riscv64"
        default: machine = "elf-machine-\(machineCode)"
        }
        struct Section { var type: Int; var offset: Int; var size: Int; var link: Int; var info: Int }
        var sections: [Section] = []
        for index in 0..<sectionCount {
            let base = sectionOffset + index * entrySize
            guard let type = u32(base + 4), let offset = u64(base + 24), let size = u64(base + 32),
                  let link = u32(base + 40), let info = u32(base + 44) else { return nil }
            sections.append(Section(type: type, offset: offset, size: size, link: link, info: info))
        }
        func stringTable(_ index: Int) -> Int? { index < sections.count ? sections[index].offset : nil }

        var needed: [String] = []
        for section in sections where section.type == 6 /* SHT_DYNAMIC */ {
            guard let strings = stringTable(section.link) else { continue }
            var at = section.offset
            while at + 16 <= section.offset + section.size, let tag = u64(at), tag != 0 {
                if tag == 1 /* DT_NEEDED */, let value = u64(at + 8), let name = cString(strings + value) { needed.append(name) }
                at += 16
            }
        }
        neededLibraries = needed

        var highest: [Int]?
        for section in sections where section.type == 0x6fff_fffe /* SHT_GNU_verneed */ {
            guard let strings = stringTable(section.link) else { continue }
            var entry = section.offset
            for _ in 0..<max(section.info, 0) {
                guard let auxCount = u16(entry + 2), let auxOffset = u32(entry + 8), let next = u32(entry + 12) else { break }
                var aux = entry + auxOffset
                for _ in 0..<auxCount {
                    guard let nameOffset = u32(aux + 8), let auxNext = u32(aux + 12) else { break }
                    if let name = cString(strings + nameOffset), name.hasPrefix("GLIBC_") {
                        let numbers = name.dropFirst(6).split(separator: ".").compactMap { Int($0) }
                        if !numbers.isEmpty, highest.map({ ELFRequirements.compare(numbers, $0) > 0 }) ?? true { highest = numbers }
                    }
                    if auxNext == 0 { break }
                    aux += auxNext
                }
                if next == 0 { break }
                entry += next
            }
        }
        glibc = highest
    }

    /// The machine this process runs on (`uname -m`).
    package static func hostMachine() -> String {
        var info = utsname()
        uname(&info)
        return withUnsafeBytes(of: &info.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Compares dotted version numbers: negative, zero or positive.
    package static func compare(_ a: [Int], _ b: [Int]) -> Int {
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    /// "2.36" → [2, 36]; nil when it is not a dotted version.
    package static func parseVersion(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".")
        let numbers = parts.compactMap { Int($0) }
        return numbers.count == parts.count && !numbers.isEmpty ? numbers : nil
    }
}
