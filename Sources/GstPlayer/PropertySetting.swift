// yt-gst — a value to set on a named element of a pipeline once it is parsed (template values, user options).

/// A property value the user gave as text (a template's or an option's `prop=value`) for a named element, set after
/// parsing and never spliced into the launch text.
public struct PropertySetting: Sendable, Equatable {
    /// The `name` of the element in the launch string.
    public var element: String
    public var property: String
    /// The value as text, converted to the property's type (see `Element.set(_:fromString:)`).
    public var value: String

    public init(element: String, property: String, value: String) {
        self.element = element
        self.property = property
        self.value = value
    }
}

extension Pipeline {
    /// Sets each value on its element, in order.
    ///
    /// - Throws: `.notFound` for an element or property the pipeline lacks, `.invalidValue` for a value that does not
    ///   convert.
    public func apply(_ settings: [PropertySetting]) throws(GstError) {
        for setting in settings {
            try element(named: setting.element).set(setting.property, fromString: setting.value)
        }
    }
}
