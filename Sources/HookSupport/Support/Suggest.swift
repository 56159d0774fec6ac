/// "Did you mean …?" for unknown option names, config keys and sink types.
package enum Suggest {
    package static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            let allowed = max(1, min(3, candidate.count / 3))
            if distance <= allowed, best == nil || distance < best!.1 { best = (candidate, distance) }
        }
        if best == nil, let prefixed = candidates.first(where: { $0.hasPrefix(word) && word.count >= 3 }) { return prefixed }
        // A key with a word too many or too few (`bot_token` for `token`, `chat` for `chat_id`): the
        // longest candidate that is one of the word's `_`/`-` parts.
        if best == nil {
            let parts = Set(word.lowercased().split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init))
            if parts.count > 1, let part = candidates.filter({ $0.count >= 3 && parts.contains($0.lowercased()) }).max(by: { $0.count < $1.count }) {
                return part
            }
        }
        return best?.0
    }

    /// ` (did you mean 'x'?)`, or the empty string.
    package static func hint(for word: String, in candidates: [String], quote: String = "'") -> String {
        guard let match = closest(to: word, in: candidates) else { return "" }
        return " (did you mean \(quote)\(match)\(quote)?)"
    }

    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions
        // ("ulr" → "url" is one typo, not two).
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
