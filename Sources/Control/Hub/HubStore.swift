// yt-gst — where a hub keeps its rooms and groups: $XDG_STATE_HOME/yt-gst/hub-<PORT>.json.

/// The hub's groups and rooms across restarts (names, volumes, mutes, delays), one file per control port.
public struct HubStore: Sendable {
    public let file: StateFile

    public init(file: StateFile) { self.file = file }

    /// The store of the hub on `port` (nil when there is no state directory: no $XDG_STATE_HOME nor $HOME).
    public init?(port: Int) {
        guard let file = StateFile(named: "hub-\(port).json") else { return nil }
        self.file = file
    }

    /// What was kept (every room disconnected); empty when nothing was.
    /// - Throws: when the file exists but cannot be read as JSON (it is left as it is).
    public func load(streamID: String) throws(StateFileError) -> HubState {
        guard let value = try file.read() else { return HubState() }
        return HubState(stored: value, streamID: streamID)
    }

    public func save(_ state: HubState) throws(StateFileError) { try file.write(state.stored) }
}
