// yt-gst — the bus as a file descriptor, so an application's own poll(2) loop can sleep until a message arrives.
internal import CGStreamer

extension Pipeline {
    /// A descriptor that is readable while messages wait on the bus: poll it (with the terminal, a signal pipe, ...)
    /// and read the messages with `nextMessage(timeout: .zero)`. Never read from or write to it.
    ///
    /// The corresponding C function is `gst_bus_get_pollfd`.
    public var busDescriptor: Int32 {
        var descriptor = GPollFD()
        gst_bus_get_pollfd(bus, &descriptor)
        return descriptor.fd
    }
}
