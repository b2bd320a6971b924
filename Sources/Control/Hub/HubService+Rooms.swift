// yt-gst — the rooms' side of the service: a receiver registers (Hello), is told its config, reports, leaves.

extension HubService {
    /// yt-gst.Room.Hello: the room `params.id` is connected on this connection. A room the hub knows keeps what
    /// is stored (a rename or volume made while it was away); a new one brings its own config and gets a group.
    /// The result is the room's config (as `yt-gst.Room.Configure` says it).
    func hello(_ params: Params, caller: Caller) throws(JSONRPCError) -> JSONValue {
        guard let connection = caller.id else { throw .invalidParams("a room registers over a connection") }
        let id = try params.string("id")
        guard !id.isEmpty else { throw .invalidParams("id must not be empty") }
        var config = RoomConfig(json: try params.object("config", optional: true))
        config.name = params.value["name"]?.string ?? ""
        var client = HubClient(
            id: id, host: HubHost(json: params.value["host"] ?? .null, ip: caller.address), config: config)
        client.version = params.value["version"]?.string ?? ""
        client.connected = true
        client.lastSeen = Self.now
        for (key, entry) in peers where entry.roomID == id && key != connection {
            peers[key]?.roomID = nil  // an older connection of the same room: it is this one now
            entry.peer.close()
        }
        peers[connection]?.roomID = id
        var isNew = false
        change { isNew = $0.register(client, streamID: stream.id, newGroupID: RandomID.uuid) }
        if isNew {
            notify("Server.OnUpdate", serverJSON)
        } else {
            notify("Client.OnConnect", clientEvent(id))
        }
        return roomConfiguration(id)
    }

    /// yt-gst.Room.Report {state, sync, packets}: kept for Client.GetStatus and told to control peers.
    func report(_ params: Params, caller: Caller) throws(JSONRPCError) -> JSONValue {
        guard let roomID = caller.id.flatMap({ peers[$0]?.roomID }), state.clients[roomID] != nil else {
            throw .invalidParams("yt-gst.Room.Hello first")
        }
        let report = JSONValue.object([
            ("packets", params.value["packets"] ?? .null), ("state", params.value["state"] ?? .null),
            ("sync", params.value["sync"] ?? .null),
        ])
        state.clients[roomID]?.report = report
        state.clients[roomID]?.lastSeen = Self.now
        notify("yt-gst.Client.OnReport", .object([("id", .string(roomID)), ("yt-gst", report)]))
        return "ok"
    }

    /// A room's connection closed: it is disconnected (Client.OnDisconnect).
    func roomLeft(_ id: String) {
        guard state.clients[id] != nil else { return }
        change {
            $0.clients[id]?.connected = false
            $0.clients[id]?.lastSeen = Self.now
            $0.clients[id]?.report = nil
        }
        notify("Client.OnDisconnect", clientEvent(id))
    }

    /// Tells the room `id`, when connected, its config (after any change to it or its group's mute).
    func configureRoom(_ id: String) {
        guard let entry = peers.values.first(where: { $0.roomID == id }) else { return }
        entry.peer.send(JSONRPC.notification("yt-gst.Room.Configure", roomConfiguration(id)).text)
    }

    /// Closes the connection of the room `id` (deleted: it registers anew when it reconnects).
    func closeRoom(_ id: String) {
        for (key, entry) in peers where entry.roomID == id {
            peers[key]?.roomID = nil
            entry.peer.close()
        }
    }

    /// `{"config": {name, volume, latency}, "groupMuted": M}`: what a room applies.
    private func roomConfiguration(_ id: String) -> JSONValue {
        let config = state.clients[id]?.config ?? RoomConfig()
        return .object([
            (
                "config",
                .object([
                    ("latency", .number(Double(config.latency))), ("name", .string(config.name)),
                    ("volume", config.volumeJSON),
                ])
            ),
            ("groupMuted", .bool(state.group(of: id)?.muted ?? false)),
        ])
    }

    /// Client.OnConnect's and OnDisconnect's params: `{"client": {...}, "id": ID}`.
    private func clientEvent(_ id: String) -> JSONValue {
        .object([("client", state.clients[id]?.json ?? .null), ("id", .string(id))])
    }
}
