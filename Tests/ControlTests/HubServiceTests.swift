// yt-gst — the control service in the test's process: Snapcast's shapes, notifications, batches, errors, auth,
// rooms and persistence (the transports are HubServerTests').
import Foundation
import TestSupport
import Testing

@testable import Control

@Suite struct HubServiceTests {
    /// Every call snapserver 0.26 answered in the fixture, made to yt-gst's hub with the same room: each reply and
    /// each notification another control connection got has at least the fields Snapcast's had (yt-gst adds its
    /// own under "yt-gst"). Stream.Control/SetProperty are left out: snapserver's pipe stream cannot be steered.
    @Test func repliesHaveSnapcastsShapes() throws {
        let calls = SnapserverFixture.calls
        try #require(calls.count >= 20, "the fixture Tests/Fixtures/snapserver-0.26.jsonl")
        let first = try #require(calls[0].entry["reply"] as? [[String: Any]]).first
        let server = (first?["result"] as? [String: Any])?["server"] as? [String: Any]
        let snapGroup = try #require((server?["groups"] as? [[String: Any]])?.first?["id"] as? String)
        let hub = try HubFixture()
        _ = hub.room("kitchen")
        let (caller, other) = (hub.peer(), hub.peer())
        var compared = 0
        for (text, entry) in calls where !text.contains("\"Stream.") {
            let ours = text.replacingOccurrences(of: snapGroup, with: hub.groupID(of: "kitchen"))
                .replacingOccurrences(of: "\"default\"", with: "\"\(HubFixture.streamID)\"")
            _ = (caller.take(), other.take())
            hub.service.received(ours, from: caller)
            let (reply, notes) = (caller.take(), other.take())
            let (snapReply, snapNotes) = (entry["reply"] as? [Any] ?? [], entry["other"] as? [Any] ?? [])
            #expect(reply.count == snapReply.count, "\(text): \(reply)")
            #expect(keyPaths(snapReply).subtracting(keyPaths(reply)).isEmpty, "\(text): \(reply) vs \(snapReply)")
            #expect(
                notes.map { ($0 as? [String: Any])?["method"] as? String }
                    == snapNotes.map { ($0 as? [String: Any])?["method"] as? String }, "\(text): \(notes)")
            #expect(keyPaths(snapNotes).subtracting(keyPaths(notes)).isEmpty, "\(text): \(notes)")
            compared += 1
        }
        #expect(compared >= 18)
        let streams = (hub.call(caller, "Server.GetStatus")?["result"] as? [String: Any]).flatMap {
            ($0["server"] as? [String: Any])?["streams"] as? [[String: Any]]
        }
        let uri = streams?.first?["uri"] as? [String: Any]
        #expect((uri?["query"] as? [String: Any])?["name"] as? String == HubFixture.streamID, "clients show the name")
        #expect(uri?["scheme"] as? String == "rtp" && uri?["host"] as? String == "239.255.78.1:5004")
    }

    /// A room leaving, coming back and a new room: Client.OnDisconnect, Client.OnConnect, Server.OnUpdate as
    /// snapserver sends them.
    @Test func roomEventsHaveSnapcastsShapes() throws {
        let hub = try HubFixture()
        let watcher = hub.peer()
        var room = hub.room("kitchen")
        _ = watcher.take()
        hub.service.disconnected(room)
        let left = watcher.take()
        room = hub.room("kitchen")
        let back = watcher.take()
        _ = hub.room("bath")
        let new = watcher.take()
        for (name, ours) in [("disconnect", left), ("reconnect", back), ("new-client", new)] {
            let snap = SnapserverFixture.event(name)
            #expect(!snap.isEmpty, "fixture event \(name)")
            #expect(
                ours.map { ($0 as? [String: Any])?["method"] as? String }
                    == snap.map { ($0 as? [String: Any])?["method"] as? String }, "\(name): \(ours)")
            #expect(keyPaths(snap).subtracting(keyPaths(ours)).isEmpty, "\(name): \(ours)")
        }
        _ = room
    }

    /// A change is told to every other control peer, not to the caller (who has the reply), nor to rooms.
    @Test func notificationsGoToOthersOnly() throws {
        let hub = try HubFixture()
        let kitchen = hub.room("kitchen")
        let (a, b, c) = (hub.peer(), hub.peer(), hub.peer())
        _ = (kitchen.take(), b.take(), c.take())
        let reply = hub.call(a, "Client.SetName", ["id": "kitchen", "name": "Kitchen"])
        #expect((reply?["result"] as? [String: Any])?["name"] as? String == "Kitchen")
        #expect(a.take().isEmpty)
        #expect(b.methods() == ["Client.OnNameChanged"])
        #expect(c.methods() == ["Client.OnNameChanged"])
        #expect(kitchen.methods() == ["yt-gst.Room.Configure"], "the room is told its config, not Snapcast's events")
    }

    @Test func batchesAreAnsweredAsBatches() throws {
        let hub = try HubFixture()
        let peer = hub.peer()
        hub.service.received(
            #"[{"jsonrpc":"2.0","id":1,"method":"Server.GetRPCVersion"},{"jsonrpc":"2.0","method":"Server.GetStatus"},"#
                + #"{"jsonrpc":"2.0","id":"x","method":"No.Such"},7]"#, from: peer)
        let batch = try #require(peer.take().first as? [[String: Any]])
        #expect(batch.count == 3)
        #expect(batch[0]["id"] as? Int == 1 && batch[0]["result"] != nil)
        #expect(batch[1]["id"] as? String == "x" && (batch[1]["error"] as? [String: Any])?["code"] as? Int == -32601)
        #expect((batch[2]["error"] as? [String: Any])?["code"] as? Int == -32600 && batch[2]["id"] is NSNull)
        hub.service.received(#"[{"jsonrpc":"2.0","method":"Server.GetStatus"}]"#, from: peer)
        #expect(peer.take().isEmpty, "a batch of notifications gets no reply")
        hub.service.received("[]", from: peer)
        #expect(code(peer.take().first) == -32600)
    }

    /// Malformed JSON, unknown methods, requests without "jsonrpc", wrong types and unknown ids each get their
    /// error, and the connection goes on.
    @Test(arguments: [
        (#"{"jsonrpc":"2.0","id":1,"method":"#, -32700),
        (#"{"jsonrpc":"2.0","id":1,"method":"No.Such"}"#, -32601),
        (#"{"id":1,"method":"Server.GetStatus"}"#, -32600),
        (#"{"jsonrpc":"2.0","id":1,"method":7}"#, -32600),
        (#"{"jsonrpc":"2.0","id":{},"method":"Server.GetStatus"}"#, -32600),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"Client.SetVolume","params":{"id":"kitchen","volume":{"percent":"x"}}}"#,
            -32602
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"Client.SetVolume","params":{"id":"kitchen","volume":{"percent":101}}}"#,
            -32602
        ),
        (#"{"jsonrpc":"2.0","id":1,"method":"Client.SetVolume","params":{"id":"kitchen"}}"#, -32602),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"Client.SetVolume","params":{"id":"nobody","volume":{"percent":5}}}"#,
            -32602
        ),
        (#"{"jsonrpc":"2.0","id":1,"method":"Client.SetLatency","params":{"id":"kitchen","latency":1.5}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"Group.SetMute","params":{"id":"zz","mute":true}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"Group.SetClients","params":{"id":"zz","clients":"kitchen"}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"Stream.Control","params":{"id":"nope","command":"next"}}"#, -32602),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"Stream.Control","params":{"id":"rtp://239.255.78.1:5004","command":"dance"}}"#,
            -32602
        ),
        (#"{"jsonrpc":"2.0","id":1,"method":"yt-gst.Room.Report","params":{"state":"receiving"}}"#, -32602),
    ])
    func badRequestsGetTheirError(text: String, expected: Int) throws {
        let hub = try HubFixture()
        _ = hub.room("kitchen")
        let peer = hub.peer()
        hub.service.received(text, from: peer)
        #expect(code(peer.take().first) == expected, "\(text)")
        #expect(hub.call(peer, "Server.GetRPCVersion")?["result"] != nil, "the connection goes on")
        #expect(hub.service.state.clients["kitchen"]?.config == RoomConfig(), "nothing changed")
    }

    /// With a token: changes need it (Server.Authenticate first, or a bearer token on a POST), reads need it unless
    /// --control-read-open, and a peer that has not authenticated is told nothing.
    @Test func aTokenGuardsChanges() throws {
        let hub = try HubFixture(access: .init(token: "s3cret"))
        let room = hub.peer(address: "10.0.0.2", loopback: false)
        #expect(code(hub.call(room, "yt-gst.Room.Hello", ["id": "kitchen", "name": ""])) == -32001)
        #expect(hub.call(room, "Server.Authenticate", ["token": "s3cret"])?["result"] as? String == "ok")
        #expect(hub.call(room, "yt-gst.Room.Hello", ["id": "kitchen", "name": ""])?["result"] != nil)
        let stranger = hub.peer(address: "10.0.0.3", loopback: false)
        let local = hub.peer()
        #expect(code(hub.call(local, "Client.SetVolume", ["id": "kitchen", "volume": ["percent": 5]])) == -32001)
        #expect(code(hub.call(stranger, "Server.GetStatus")) == -32001, "reads need the token too")
        #expect(code(hub.call(stranger, "Server.Authenticate", ["token": "s3cret!"])) == -32001)
        #expect(code(hub.call(stranger, "Server.Authenticate", ["token": "s3cre"])) == -32001)
        #expect(!stranger.closed, "a wrong token leaves the connection open")
        #expect(
            hub.call(stranger, "Server.Authenticate", ["scheme": "Bearer", "param": "s3cret"])?["result"] as? String
                == "ok")
        _ = (local.take(), stranger.take())
        #expect(hub.call(stranger, "Client.SetVolume", ["id": "kitchen", "volume": ["percent": 5]])?["result"] != nil)
        #expect(local.take().isEmpty, "no notifications before authenticating")
        #expect(hub.service.state.clients["kitchen"]?.config.volumePercent == 5)
        let post =
            #"{"jsonrpc":"2.0","id":1,"method":"Group.SetName","params":{"id":"\#(hub.groupID(of: "kitchen"))","name":"Up"}}"#
        #expect(code(json(hub.service.handleOneShot(post, bearerToken: nil, peerIsLoopback: true))) == -32001)
        #expect(code(json(hub.service.handleOneShot(post, bearerToken: "wrong", peerIsLoopback: true))) == -32001)
        #expect(json(hub.service.handleOneShot(post, bearerToken: "s3cret", peerIsLoopback: false))?["result"] != nil)
    }

    @Test func readOpenLetsReadsThrough() throws {
        let hub = try HubFixture(access: .init(token: "s3cret", readOpen: true))
        let peer = hub.peer(address: "10.0.0.3", loopback: false)
        #expect(hub.call(peer, "Server.GetStatus")?["result"] != nil)
        #expect(hub.call(peer, "Server.GetRPCVersion")?["result"] != nil)
        let group = #"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"#
        #expect(json(hub.service.handleOneShot(group, bearerToken: nil, peerIsLoopback: false))?["result"] != nil)
        #expect(code(hub.call(peer, "Stream.Control", ["id": HubFixture.streamID, "command": "pause"])) == -32001)
        #expect(hub.service.readsNeedNoToken)
    }

    /// Without a token the service is for this machine only (unless --control-open): a peer from elsewhere is
    /// closed at once, a POST from elsewhere refused.
    @Test func withoutATokenOnlyLoopbackIsServed() throws {
        let hub = try HubFixture(access: .init())
        let remote = hub.peer(address: "10.0.0.3", loopback: false)
        #expect(remote.closed)
        let post = #"{"jsonrpc":"2.0","id":1,"method":"Server.GetStatus"}"#
        #expect(code(json(hub.service.handleOneShot(post, bearerToken: nil, peerIsLoopback: false))) == -32001)
        #expect(json(hub.service.handleOneShot(post, bearerToken: nil, peerIsLoopback: true))?["result"] != nil)
        let open = try HubFixture(access: .init(open: true))
        let allowed = open.peer(address: "10.0.0.3", loopback: false)
        #expect(!allowed.closed)
        #expect(open.call(allowed, "Client.GetStatus", ["id": "x"]).map(code) == -32602)
    }

    /// A new room brings its own config; the hub's stored config wins for a room it knows (a rename made while it
    /// was away); changes and its group's mute reach it as yt-gst.Room.Configure; a report is kept and told.
    @Test func roomsRegisterAndAreConfigured() throws {
        let hub = try HubFixture()
        let watcher = hub.peer()
        var kitchen = hub.peer(address: "10.0.0.2", loopback: false)
        let hello: [String: Any] = [
            "id": "kitchen", "name": "Kitchen", "host": ["name": "pi"],
            "config": ["volume": ["percent": 30, "muted": false], "latency": 12],
        ]
        let first = try #require(hub.call(kitchen, "yt-gst.Room.Hello", hello)?["result"] as? [String: Any])
        #expect((first["config"] as? [String: Any])?["latency"] as? Int == 12)
        #expect(hub.service.state.clients["kitchen"]?.host.ip == "10.0.0.2")
        #expect(watcher.methods() == ["Server.OnUpdate"])
        hub.call(watcher, "Client.SetVolume", ["id": "kitchen", "volume": ["percent": 64]])
        let configure = try #require(kitchen.take().first as? [String: Any])
        #expect(configure["method"] as? String == "yt-gst.Room.Configure")
        let volume = ((configure["params"] as? [String: Any])?["config"] as? [String: Any])?["volume"]
        #expect((volume as? [String: Any])?["percent"] as? Int == 64)
        hub.call(watcher, "Group.SetMute", ["id": hub.groupID(of: "kitchen"), "mute": true])
        #expect(((kitchen.take().first as? [String: Any])?["params"] as? [String: Any])?["groupMuted"] as? Bool == true)
        hub.call(
            kitchen, "yt-gst.Room.Report", ["state": "receiving", "sync": ["offsetUs": 3], "packets": ["lost": 0]])
        #expect(watcher.methods() == ["yt-gst.Client.OnReport"])
        let status = hub.call(watcher, "Client.GetStatus", ["id": "kitchen"])?["result"] as? [String: Any]
        #expect(
            ((status?["client"] as? [String: Any])?["yt-gst"] as? [String: Any])?["state"] as? String == "receiving")
        hub.service.disconnected(kitchen)
        #expect(watcher.methods() == ["Client.OnDisconnect"])
        hub.call(watcher, "Client.SetName", ["id": "kitchen", "name": "Cuisine"])
        kitchen = hub.peer(address: "10.0.0.2", loopback: false)
        let again = try #require(hub.call(kitchen, "yt-gst.Room.Hello", hello)?["result"] as? [String: Any])
        #expect((again["config"] as? [String: Any])?["name"] as? String == "Cuisine", "the hub's config wins")
        #expect(((again["config"] as? [String: Any])?["volume"] as? [String: Any])?["percent"] as? Int == 64)
        #expect(again["groupMuted"] as? Bool == true)
        #expect(watcher.methods() == ["Client.OnConnect"])
    }

    /// Group.SetClients moves rooms between groups Snapcast's way; a room left out gets a group of its own.
    @Test func setClientsRegroups() throws {
        let hub = try HubFixture()
        let (a, b) = (hub.room("a"), hub.room("b"))
        let peer = hub.peer()
        let group = hub.groupID(of: "a")
        let reply = hub.call(peer, "Group.SetClients", ["id": group, "clients": ["a", "b"]])
        #expect(reply?["result"] != nil)
        #expect(hub.service.state.groups.count == 1 && hub.service.state.groups[0].clients == ["a", "b"])
        hub.call(peer, "Group.SetClients", ["id": group, "clients": ["b"]])
        #expect(hub.service.state.groups.count == 2 && hub.groupID(of: "a") != group)
        _ = (a, b)
    }

    /// Names, volumes, delays and groups survive the hub's restart (a new service on the same store); every room
    /// then is disconnected until it says Hello again.
    @Test func theStoreKeepsRoomsAcrossRestarts() throws {
        let scratch = try Paths.makeScratch("hub-store")
        defer { Paths.removeScratch(scratch) }
        let store = HubStore(file: StateFile(path: scratch.path + "/state/yt-gst/hub-1705.json"))
        let before = try HubFixture(store: store)
        _ = before.room("kitchen")
        let peer = before.peer()
        before.call(peer, "Client.SetName", ["id": "kitchen", "name": "Kitchen"])
        before.call(peer, "Client.SetLatency", ["id": "kitchen", "latency": 40])
        before.call(peer, "Client.SetVolume", ["id": "kitchen", "volume": ["percent": 25, "muted": true]])
        before.call(peer, "Group.SetName", ["id": before.groupID(of: "kitchen"), "name": "Downstairs"])
        let after = try HubFixture(store: store)
        let client = try #require(after.service.state.clients["kitchen"])
        #expect(client.config == RoomConfig(name: "Kitchen", volumePercent: 25, muted: true, latency: 40))
        #expect(!client.connected && client.host.name == "kitchen-host")
        #expect(after.service.state.group(of: "kitchen")?.name == "Downstairs")
        #expect(after.service.state.group(of: "kitchen")?.id == before.groupID(of: "kitchen"))
    }

    @Test func aStoreThatIsNotJSONIsLeftAlone() throws {
        let scratch = try Paths.makeScratch("hub-store")
        defer { Paths.removeScratch(scratch) }
        let path = scratch.path + "/hub-1705.json"
        try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: StateFileError.self) { try HubStore(file: StateFile(path: path)).load(streamID: "s") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ not json")
    }

    /// Stream.Control and Stream.SetProperty steer the stream's model; the change is told to every control peer
    /// (the caller too, after its reply) as Stream.OnProperties.
    @Test func theStreamIsSteered() throws {
        let hub = try HubFixture()
        let (peer, watcher) = (hub.peer(), hub.peer())
        let stream = HubFixture.streamID
        for command in ["pause", "Play", "playPause"] {
            _ = watcher.take()
            hub.service.received(
                #"{"jsonrpc":"2.0","id":7,"method":"Stream.Control","params":{"id":"\#(stream)","command":"\#(command)"}}"#,
                from: peer)
            let sent = peer.take().compactMap { $0 as? [String: Any] }
            #expect(sent.first?["result"] as? String == "ok" && sent.first?["id"] as? Int == 7)
            #expect(sent.dropFirst().map { $0["method"] as? String } == ["Stream.OnProperties"])
            #expect(watcher.methods() == ["Stream.OnProperties"])
        }
        #expect(hub.model.paused)
        for (property, value) in [("loopStatus", "playlist"), ("shuffle", true), ("volume", 40)] as [(String, Any)] {
            #expect(
                hub.call(peer, "Stream.SetProperty", ["id": stream, "property": property, "value": value])?["result"]
                    as? String == "ok")
        }
        #expect(hub.model.loop == .playlist && hub.model.shuffle && hub.model.volumePercent == 40)
        for (property, value) in [("loopStatus", "sometimes"), ("shuffle", "yes"), ("volume", 101), ("rate", 1)]
            as [(String, Any)]
        {
            let reply = hub.call(peer, "Stream.SetProperty", ["id": stream, "property": property, "value": value])
            #expect(code(reply) == -32602, "\(property)")
        }
        let properties = (watcher.take().last as? [String: Any]).flatMap {
            ($0["params"] as? [String: Any])?["properties"] as? [String: Any]
        }
        #expect(
            properties?["playbackStatus"] as? String == "paused" && properties?["loopStatus"] as? String == "playlist")
        #expect(properties?["shuffle"] as? Bool == true && properties?["volume"] as? Int == 40)
        #expect(
            hub.call(peer, "Stream.Control", ["id": stream, "command": "seek", "params": ["offset": 5]])?["result"]
                as? String == "ok")
        #expect(
            code(hub.call(peer, "Stream.Control", ["id": stream, "command": "setPosition", "params": [:]])) == -32602)
    }

    /// Without status ticks (a sender with no status line) the position goes on from the last change while
    /// playing, and stays while paused.
    @Test func thePositionGoesOnWithoutTicks() throws {
        let hub = try HubFixture()
        let peer = hub.peer()
        func position() -> Double {
            let result = hub.call(peer, "Server.GetStatus")?["result"] as? [String: Any]
            let streams = (result?["server"] as? [String: Any])?["streams"] as? [[String: Any]]
            return (streams?.first?["properties"] as? [String: Any])?["position"] as? Double ?? -1
        }
        hub.model.update(.fileChanged(path: "/nonexistent/a.wav", position: 0))
        usleep(400_000)
        #expect(position() >= 0.35 && position() < 1.5, "\(position())")
        hub.model.update(.pausedChanged(true))
        let paused = position()
        usleep(300_000)
        #expect(position() == paused && paused >= 0.35)
        hub.model.update(.pausedChanged(false))
        usleep(300_000)
        #expect(position() >= paused + 0.25)
        hub.model.update(.fileChanged(path: "/nonexistent/b.wav", position: 1))
        #expect(position() < 0.2, "a new file starts at 0")
    }

    @Test func tokensAreComparedWhole() throws {
        let hub = try HubFixture(access: .init(token: "abc"))
        #expect(hub.service.tokenMatches("abc"))
        for wrong in ["", "ab", "abcd", "abd", "ABC"] { #expect(!hub.service.tokenMatches(wrong)) }
    }

    private func code(_ message: Any?) -> Int? {
        ((message as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int
    }

    private func json(_ text: String?) -> [String: Any]? {
        text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
