// yt-gst — a test's processes are gone when it ends, however it ends: a multi-room lab killed by its time limit
// (SIGKILL, which the lab cannot catch) and scripts/with-pulseaudio.sh killed the same way leave no process and no
// namespace behind.
import Foundation
import TestSupport
import Testing

@Suite(.serialized, .enabled(if: MultiRoomLab.available, "needs root, iproute2, PulseAudio and python3-numpy"))
struct LabCleanupTests {
    /// The command names (`/proc/PID/comm`) of the processes that carry `marker`.
    func names(_ marker: ProcessMarker) -> [String] {
        marker.processes().map {
            ((try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.sorted()
    }

    /// A lab with its PulseAudio, parec, a sniffer and receivers (one under faketime, which forks: a grandchild)
    /// is killed by its time limit mid-run: none of its processes, namespaces or scratch files are left.
    @Test func aLabKilledByItsTimeLimitLeavesNothing() throws {
        var run = MultiRoomRun(senders: ["sleep 600"], receivers: ["sleep 600", "sleep 600"])
        run.seconds = 60
        run.fast = [1: 200]
        let started = try MultiRoomLab.start(run)
        defer { started.marker.killAll() }
        // Running: PulseAudio, parec and both receivers are up (sleeps: two receivers and the sender).
        let up = waitUntil(30) {
            let running = names(started.marker)
            return running.contains("pulseaudio") && running.contains("parec")
                && running.filter { $0 == "sleep" }.count == 3
        }
        try #require(up, "the lab did not start its processes: \(names(started.marker))")
        let namespaces = NetworkLab.namespaceNames().filter { $0.hasPrefix(started.namespacePrefix) }
        #expect(namespaces.count >= 4, "\(namespaces)")

        let clock = ContinuousClock()
        var result: RunResult?
        let cleanup = clock.measure { result = MultiRoomLab.finish(started, within: 0) }
        #expect(result?.termination == .signalled(SIGKILL))
        let left = names(started.marker)
        #expect(left.isEmpty, "left running after the lab was killed: \(left)")
        let leftNamespaces = NetworkLab.namespaceNames().filter { $0.hasPrefix(started.namespacePrefix) }
        #expect(leftNamespaces.isEmpty, "namespaces left: \(leftNamespaces)")
        #expect(started.scratchDirectories.isEmpty, "scratch left: \(started.scratchDirectories)")
        print("a killed lab: cleaned up in \(cleanup)")
    }

    /// A lab sent SIGTERM (as bench.py's time limit and `timeout` do) while it is still making its namespaces
    /// deletes them itself: it is left no time to start anything else. (Before, the namespaces made so far outlived
    /// it: its cleaning only began once all were made.)
    @Test func aLabStoppedWhileBuildingDeletesItsNamespaces() throws {
        let started = try MultiRoomLab.start(
            MultiRoomRun(senders: ["sleep 600"], receivers: ["sleep 600", "sleep 600"]))
        defer { _ = MultiRoomLab.finish(started, within: 0) }
        // /run/netns is where `ip netns add` puts them; read directly, it is seen within a millisecond.
        func made() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? [])
                .filter { $0.hasPrefix(started.namespacePrefix) }
        }
        try #require(waitUntil(30, every: 0.001) { !made().isEmpty }, "the lab made no namespace")
        let madeWhenStopped = made().count
        kill(started.process.pid, SIGTERM)
        let result = started.process.wait(timeout: 20)
        #expect(result.termination == .exited(143), "\(result.termination): \(result.stderr.suffix(500))")
        #expect(made().isEmpty, "namespaces left by the lab itself: \(made())")
        print("a lab stopped while building (\(madeWhenStopped) namespaces made): \(result.termination)")
    }

    /// A running lab sent SIGTERM twice (`timeout` passes its own on while the sender's arrives, or a second
    /// Ctrl-C), the second while it stops its processes: it still stops them all and deletes its namespaces. (Before,
    /// the second cut its cleaning short: the namespaces were left, seen when a test loop was stopped.)
    @Test func aLabStoppedTwiceStillCleansUp() throws {
        // Receivers that ignore SIGINT: the lab waits half a second for each before it kills it.
        let stubborn = "bash -c 'trap \"\" INT; sleep 600'"
        let started = try MultiRoomLab.start(MultiRoomRun(senders: ["sleep 600"], receivers: [stubborn, stubborn]))
        defer { _ = MultiRoomLab.finish(started, within: 0) }
        try #require(
            waitUntil(30) { names(started.marker).filter { $0 == "sleep" }.count == 3 },
            "the lab did not start its processes: \(names(started.marker))")
        kill(started.process.pid, SIGTERM)
        usleep(300_000)  // it is stopping its processes now
        kill(started.process.pid, SIGTERM)
        let result = started.process.wait(timeout: 30)
        #expect(result.termination == .exited(143), "\(result.termination): \(result.stderr.suffix(500))")
        let namespaces = NetworkLab.namespaceNames().filter { $0.hasPrefix(started.namespacePrefix) }
        #expect(namespaces.isEmpty, "namespaces left by the lab itself: \(namespaces)")
        #expect(names(started.marker).isEmpty, "left running by the lab itself: \(names(started.marker))")
    }

    /// faketime shares its start time through files in /dev/shm named by its PID and removes them only when it ends
    /// by itself: killed, as a lab stops what it started, it left them, and a later faketime given that PID refused
    /// to start ("sem_open: File exists"). A lab with a faketime'd receiver removes, as it starts one and as it
    /// ends, those of every faketime no longer running: a stale pair planted here, and its own.
    @Test func aLabRemovesWhatKilledFaketimesLeft() throws {
        let pidMax =
            Int(
                (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 32768
        let dead = try #require(
            (2..<pidMax).reversed().first { !FileManager.default.fileExists(atPath: "/proc/\($0)") })
        let planted = ["faketime_shm_\(dead)", "sem.faketime_sem_\(dead)"].map { "/dev/shm/" + $0 }
        defer { for path in planted { try? FileManager.default.removeItem(atPath: path) } }
        for path in planted { try #require(FileManager.default.createFile(atPath: path, contents: Data()), "\(path)") }

        var run = MultiRoomRun(senders: ["sleep 600"], receivers: ["sleep 600", "sleep 600"])
        run.fast = [1: 200]
        let started = try MultiRoomLab.start(run)
        defer { _ = MultiRoomLab.finish(started, within: 0) }
        try #require(
            waitUntil(30) { names(started.marker).contains("faketime") }, "no faketime: \(names(started.marker))")
        #expect(planted.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "the planted pair is still there")
        kill(started.process.pid, SIGTERM)
        let result = started.process.wait(timeout: 30)
        #expect(result.termination == .exited(143), "\(result.termination): \(result.stderr.suffix(500))")
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []).filter {
            $0.hasPrefix("faketime_shm_") || $0.hasPrefix("sem.faketime_sem_")
        }.filter { name in
            !FileManager.default.fileExists(atPath: "/proc/\(name.split(separator: "_").last ?? "")")
        }
        #expect(left.isEmpty, "faketime's files of processes gone: \(left)")
    }

    /// scripts/with-pulseaudio.sh killed (SIGKILL) while its command runs: its PulseAudio goes with it.
    @Test func withPulseAudioKilledTakesItsServerAlong() throws {
        let marker = ProcessMarker()
        let script = Paths.packageRoot.appendingPathComponent("scripts/with-pulseaudio.sh").path
        // Its scratch directory (which a SIGKILL leaves: no trap sees it) goes into one of the test's.
        let scratch = try Paths.makeScratch("with-pulseaudio")
        defer { Paths.removeScratch(scratch) }
        let wrapper = try Run.launch(
            "/bin/bash", [script, "sleep", "600"],
            environment: marker.environment.merging(["TMPDIR": scratch.path]) { $1 })
        defer { marker.killAll() }
        try #require(
            waitUntil(20) { names(marker).contains("pulseaudio") && names(marker).contains("sleep") },
            "with-pulseaudio.sh did not start: \(names(marker))")
        _ = wrapper.wait(timeout: 0)  // SIGKILL, as a time limit does
        let gone = waitUntil(5) { !names(marker).contains("pulseaudio") }
        #expect(gone, "PulseAudio outlived its with-pulseaudio.sh: \(names(marker))")
    }

    /// A server that dies under scripts/with-pulseaudio.sh (the quick bench's aborted once, and its log went with
    /// the script's directory) is reported with its status and the end of its log.
    @Test func withPulseAudioSaysWhyItsServerDied() throws {
        let marker = ProcessMarker()
        defer { marker.killAll() }
        let script = Paths.packageRoot.appendingPathComponent("scripts/with-pulseaudio.sh").path
        let abortServer =
            "pa=$(pgrep -x -P $PPID pulseaudio); kill -ABRT $pa; while kill -0 $pa 2>/dev/null; do sleep 0.05; done"
        let result = try Run.launch("/bin/bash", [script, "bash", "-c", abortServer], environment: marker.environment)
            .wait(timeout: 30)
        #expect(result.termination == .exited(0), "\(result.termination): \(result.stderr.suffix(500))")
        #expect(
            result.stderr.contains("PulseAudio ended before the command did (status 134); its log ends:"),
            "\(result.stderr)")
        #expect(result.stderr.contains("W: [pulseaudio]"), "no log lines: \(result.stderr)")
    }
}
