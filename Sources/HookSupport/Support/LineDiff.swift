/// A small line diff (LCS) in unified format, for `setup --dry-run`: settings files are small.
package enum LineDiff {
    package static func unified(old: String?, new: String?, path: String, context: Int = 2) -> String {
        let a = old.map(lines) ?? []
        let b = new.map(lines) ?? []
        var header = "--- \(old == nil ? "/dev/null" : path)\n+++ \(new == nil ? "/dev/null" : path)\n"
        let operations = diff(a, b)
        guard operations.contains(where: { $0.0 != " " }) else { return "" }
        // Keep changed lines and `context` lines around them; mark the gaps.
        var keep = [Bool](repeating: false, count: operations.count)
        for (index, operation) in operations.enumerated() where operation.0 != " " {
            for near in max(0, index - context)...min(operations.count - 1, index + context) { keep[near] = true }
        }
        var previousKept = true
        for (index, operation) in operations.enumerated() {
            if keep[index] {
                if !previousKept { header += "@@ …\n" }
                header += "\(operation.0)\(operation.1)\n"
                previousKept = true
            } else {
                previousKept = false
            }
        }
        return header
    }

    package static func lines(_ text: String) -> [String] {
        var result = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { result.removeLast() } else if !text.isEmpty { result[result.count - 1] += "\n\\ No newline at end of file" }
        return result
    }

    package static func diff(_ a: [String], _ b: [String]) -> [(Character, String)] {
        let n = a.count, m = b.count
        if n * m > 4_000_000 {
            return a.map { ("-", $0) } + b.map { ("+", $0) }
        }
        var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var result: [(Character, String)] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, a[i] == b[j] { result.append((" ", a[i])); i += 1; j += 1 }
            else if i < n, j == m || table[i + 1][j] >= table[i][j + 1] { result.append(("-", a[i])); i += 1 }
            else { result.append(("+", b[j])); j += 1 }
        }
        return result
    }
}
