internal import CYAML

/// A YAML node with where it stands in the text, read through libyaml's document API.
/// Positions let errors name line and column, and let `setup` splice the text without reformatting it.
package final class YAMLNode: Sendable {
    package enum Kind: Sendable { case scalar, mapping, sequence }

    package let kind: Kind
    /// The scalar's text (empty for collections).
    package let value: String
    /// True when the scalar was quoted or a block scalar: never read as null/bool/number.
    package let isQuoted: Bool
    /// 1-based line and column of the node's start.
    package let line: Int
    package let column: Int
    /// UTF-8 byte offsets of the node's start and end in the parsed text.
    package let startOffset: Int
    package let endOffset: Int
    package let pairs: [Pair]
    package let items: [YAMLNode]

    /// One key and its value in a mapping (a struct, not a tuple: reading a config makes no tuple type).
    package struct Pair: Sendable {
        package let key: YAMLNode
        package let value: YAMLNode
    }

    package init(kind: Kind, value: String, isQuoted: Bool, line: Int, column: Int, startOffset: Int,
         endOffset: Int, pairs: [Pair], items: [YAMLNode]) {
        self.kind = kind
        self.value = value
        self.isQuoted = isQuoted
        self.line = line
        self.column = column
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.pairs = pairs
        self.items = items
    }

    /// The value for a key in a mapping (nil when absent or not a mapping).
    package subscript(key: String) -> YAMLNode? {
        pairs.first(where: { $0.key.value == key })?.value
    }

    /// A plain scalar that YAML reads as null (`~`, `null`, empty).
    package var isNull: Bool {
        kind == .scalar && !isQuoted && ["", "~", "null", "Null", "NULL"].contains(value)
    }

    package var kindName: String {
        switch kind {
        case .scalar: return isNull ? "null" : "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }
}

/// A YAML syntax error with its position.
package struct YAMLError: Error, Sendable {
    package var message: String
    package var line: Int
    package var column: Int
}

package enum YAML {
    /// Parses one YAML document; nil for an empty document.
    package static func parse(_ text: String) throws -> YAMLNode? {
        let bytes = Array(text.utf8)
        let lineStarts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        let document = UnsafeMutablePointer<yaml_document_t>.allocate(capacity: 1)
        defer {
            parser.deallocate()
            document.deallocate()
        }
        guard yaml_parser_initialize(parser) == 1 else { throw YAMLError(message: "cannot start the YAML parser", line: 0, column: 0) }
        defer { yaml_parser_delete(parser) }
        return try bytes.withUnsafeBufferPointer { buffer -> YAMLNode? in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            guard yaml_parser_load(parser, document) == 1 else {
                let problem = parser.pointee.problem.map { String(cString: $0) } ?? "syntax error"
                let context = parser.pointee.context.map { String(cString: $0) }
                let mark = parser.pointee.problem_mark
                let line = Int(mark.line)
                // libyaml's words for a tab in the indentation ("found character that cannot start any
                // token") do not say what to do: say it.
                if line < lineStarts.count, bytes[lineStarts[line]...].prefix(while: { $0 == 0x20 || $0 == 0x09 }).contains(0x09) {
                    throw YAMLError(message: "a tab in the indentation: YAML needs spaces here (use spaces, not tabs)",
                                    line: line + 1, column: Int(mark.column) + 1)
                }
                throw YAMLError(message: context.map { "\(problem) \($0)" } ?? problem,
                                line: line + 1, column: Int(mark.column) + 1)
            }
            defer { yaml_document_delete(document) }
            guard let root = yaml_document_get_root_node(document) else { return nil }
            var builder = Builder(document: document, bytes: bytes, lineStarts: lineStarts)
            return try builder.build(root, depth: 0)
        }
    }

    private struct Builder {
        let document: UnsafeMutablePointer<yaml_document_t>
        let bytes: [UInt8]
        let lineStarts: [Int]
        /// Aliases make a small text expand into a huge tree ("billion laughs"): cap the nodes built.
        var built = 0

        /// libyaml marks count characters; convert line/column to a byte offset in the UTF-8 text.
        func offset(_ mark: yaml_mark_t) -> Int {
            let line = Int(mark.line)
            guard line < lineStarts.count else { return bytes.count }
            var offset = lineStarts[line]
            var column = Int(mark.column)
            while column > 0, offset < bytes.count {
                offset += 1
                while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
                column -= 1
            }
            return offset
        }

        mutating func build(_ node: UnsafeMutablePointer<yaml_node_t>, depth: Int) throws -> YAMLNode {
            let start = node.pointee.start_mark
            built += 1
            guard depth < 64, built < 100_000 else {
                throw YAMLError(message: "document too deeply nested or too large", line: Int(start.line) + 1, column: Int(start.column) + 1)
            }
            let common = (line: Int(start.line) + 1, column: Int(start.column) + 1,
                          startOffset: offset(start), endOffset: offset(node.pointee.end_mark))
            switch node.pointee.type {
            case YAML_SCALAR_NODE:
                let scalar = node.pointee.data.scalar
                let text = scalar.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                } ?? ""
                return YAMLNode(kind: .scalar, value: text, isQuoted: scalar.style != YAML_PLAIN_SCALAR_STYLE,
                                line: common.line, column: common.column, startOffset: common.startOffset,
                                endOffset: common.endOffset, pairs: [], items: [])
            case YAML_MAPPING_NODE:
                var pairs: [YAMLNode.Pair] = []
                var pair = node.pointee.data.mapping.pairs.start
                while let current = pair, current != node.pointee.data.mapping.pairs.top {
                    guard let keyNode = yaml_document_get_node(document, current.pointee.key),
                          let valueNode = yaml_document_get_node(document, current.pointee.value) else { break }
                    let key = try build(keyNode, depth: depth + 1)
                    if pairs.contains(where: { $0.key.value == key.value }) {
                        throw YAMLError(message: "duplicate key '\(key.value)'", line: key.line, column: key.column)
                    }
                    pairs.append(YAMLNode.Pair(key: key, value: try build(valueNode, depth: depth + 1)))
                    pair = current + 1
                }
                return YAMLNode(kind: .mapping, value: "", isQuoted: false, line: common.line, column: common.column,
                                startOffset: common.startOffset, endOffset: common.endOffset, pairs: pairs, items: [])
            case YAML_SEQUENCE_NODE:
                var items: [YAMLNode] = []
                var item = node.pointee.data.sequence.items.start
                while let current = item, current != node.pointee.data.sequence.items.top {
                    guard let child = yaml_document_get_node(document, current.pointee) else { break }
                    items.append(try build(child, depth: depth + 1))
                    item = current + 1
                }
                return YAMLNode(kind: .sequence, value: "", isQuoted: false, line: common.line, column: common.column,
                                startOffset: common.startOffset, endOffset: common.endOffset, pairs: [], items: items)
            default:
                return YAMLNode(kind: .scalar, value: "", isQuoted: false, line: common.line, column: common.column,
                                startOffset: common.startOffset, endOffset: common.endOffset, pairs: [], items: [])
            }
        }
    }
}
