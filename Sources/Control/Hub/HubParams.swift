// yt-gst — a call's params, read with the types Snapcast's API gives them (anything else: invalid params).

/// A call's `params` object; each read throws -32602 naming what is missing or of the wrong type.
struct Params {
    let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    func string(_ key: String) throws(JSONRPCError) -> String {
        guard let text = value[key]?.string else { throw .invalidParams("\(key) must be a string") }
        return text
    }

    func bool(_ key: String) throws(JSONRPCError) -> Bool {
        guard let flag = value[key]?.bool else { throw .invalidParams("\(key) must be true or false") }
        return flag
    }

    /// A whole number in `range` (at `key` of `object`, default these params).
    func integer(_ key: String, in range: ClosedRange<Int>, of object: JSONValue? = nil) throws(JSONRPCError) -> Int {
        guard let number = (object ?? value)[key]?.integer, range.contains(number) else {
            throw .invalidParams("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A number of seconds (a seek's offset, a position).
    func seconds(_ key: String, of object: JSONValue) throws(JSONRPCError) -> Double {
        guard let number = object[key]?.double else { throw .invalidParams("\(key) must be a number of seconds") }
        return number
    }

    /// The object at `key`; `{}` when absent if `optional`.
    func object(_ key: String, optional: Bool = false) throws(JSONRPCError) -> JSONValue {
        switch value[key] {
        case .object(let members)?: return .object(members)
        case nil where optional: return .object([])
        default: throw .invalidParams("\(key) must be an object")
        }
    }

    /// The strings of the array at `key`.
    func strings(_ key: String) throws(JSONRPCError) -> [String] {
        guard let items = value[key]?.array, case let texts = items.compactMap(\.string), texts.count == items.count
        else { throw .invalidParams("\(key) must be an array of strings") }
        return texts
    }
}
