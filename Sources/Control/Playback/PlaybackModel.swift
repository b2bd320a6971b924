// yt-gst — what every control surface of `play` (the IPC socket, MPRIS) knows about the session: one model.
import AppSrcFeeder
import Glibc
import GstPlayer
import WAV

/// A playback session's state as its events told it, and the commands every surface sends, with what they change
/// at once (so a client reading back what it just set sees it before the session has run the command).
///
/// Feed it every session event first (`update(_:)`), then let the surfaces read it: they answer from here, so no
/// client ever waits for the session, and the session never waits for a client.
/// - Note: Not Sendable: events and requests both arrive on the main loop's thread.
public final class PlaybackModel {
    /// Where the commands go; set once the session exists.
    public var control: PlaybackSession.Control?
    public private(set) var repeatEachFile: Bool
    /// Passes through the list: nil for ever.
    public private(set) var passes: Int?
    public private(set) var shuffle: Bool

    /// The list with playlist entry ids (counting from 1, never reused).
    public private(set) var entries: [(id: Int, path: String)] = []
    private var nextEntryID = 1
    /// The file playing and what its header says; nil before the first file starts and after the end.
    public private(set) var playing: Playing?
    /// The file the last `.fileStarted` (or `.ended`) ended, and whether a command moved on from it.
    public private(set) var finished: (playing: Playing, byCommand: Bool)?
    /// A command moves on from the playing file before its end (next, a jump, a seek past the end).
    private var movingOn = false
    public private(set) var paused = false
    /// Linear, 1 = unchanged.
    public private(set) var volume = 1.0
    public private(set) var muted = false
    public private(set) var rate = 1.0
    /// Seconds into the file at `positionTime` (then moving at `rate` unless paused).
    private var position = 0.0
    private var positionTime = ContinuousClock.now

    /// The file playing, as the surfaces describe it.
    public struct Playing {
        public var file: PlaybackSession.File
        public var entryID: Int?
        /// Seconds; nil when unknown (a pipe).
        public var duration: Double?
        /// The LIST/INFO tags under mpv's names ("title", "artist", ...).
        public var metadata: [(String, String)]

        public func tag(_ name: String) -> String? { metadata.first { $0.0 == name }?.1 }
        /// The title tag, else the file's name.
        public var title: String { tag("title") ?? PlaybackModel.filename(file.path) }
    }

    public init(configuration: PlaybackSession.Configuration) {
        repeatEachFile = configuration.repeatEachFile
        passes = configuration.passes
        shuffle = configuration.shuffle
        volume = configuration.volume ?? 1
        muted = configuration.muted
        rate = configuration.rate
        addEntries(configuration.files)
    }

    /// Seconds into the playing file now: the last reported position moved on at the rate while playing.
    public var timePosition: Double? {
        guard let playing else { return nil }
        var seconds = position
        if !paused { seconds += (ContinuousClock.now - positionTime) / .seconds(1) * rate }
        return playing.duration.map { min(seconds, $0) } ?? seconds
    }

    /// Whether `next` has a file to go to (the list loops, or one follows).
    public var hasNext: Bool {
        guard let playing else { return false }
        return playing.file.index + 1 < entries.count || passes != 1
    }

    /// Whether `previous` has a file to go to.
    public var hasPrevious: Bool {
        guard let playing else { return false }
        return playing.file.index > 0
    }

    /// Takes one session event (before any surface reads it).
    public func update(_ event: PlaybackSession.Event) {
        switch event {
        case .status(let snapshot):
            // Not snapshot.state: the pipeline is PAUSED for a moment after every seek.
            volume = snapshot.volume
            muted = snapshot.muted
            rate = snapshot.rate
            moved(to: snapshot.position)
        case .fileStarted(let file):
            start(file)
        case .controlsChanged(let volume, let muted, let rate):
            self.volume = volume
            self.muted = muted
            self.rate = rate
        case .orderChanged(let loopFile, let passes, let shuffle):
            repeatEachFile = loopFile
            self.passes = passes
            self.shuffle = shuffle
        case .pausedChanged(let pause):
            moved(to: timePosition ?? position)
            paused = pause
        case .seeked(let seconds):
            moved(to: seconds)
        case .ended:
            finished = playing.map { ($0, movingOn) }
            playing = nil
        case .tags, .warning, .fileSkipped, .nothingToPlay, .seekUnavailable, .commandFailed, .fileFailed:
            break
        }
    }

    private func start(_ file: PlaybackSession.File) {
        finished = playing.map { ($0, movingOn) }
        movingOn = false
        let entry = file.index < entries.count && entries[file.index].path == file.path ? entries[file.index].id : nil
        let header = file.isStream ? nil : try? WAVFile.open(path: file.path).file
        playing = Playing(
            file: file, entryID: entry, duration: header.map(\.durationSeconds),
            metadata: header.map { Self.metadata($0.metadata.info) } ?? [])
        moved(to: 0)
    }

    private func moved(to seconds: Double) {
        position = seconds
        positionTime = .now
    }

    private func addEntries(_ paths: [String]) {
        for path in paths {
            entries.append((nextEntryID, path))
            nextEntryID += 1
        }
    }

    // MARK: Commands

    public func setPaused(_ pause: Bool) {
        moved(to: timePosition ?? 0)
        paused = pause
        pause ? control?.pause() : control?.resume()
    }

    public func setMuted(_ mute: Bool) {
        muted = mute
        control?.setMute(mute)
    }

    /// Kept within `PlaybackSession.volumeRange`.
    public func setVolume(_ linear: Double) {
        volume = min(max(linear, PlaybackSession.volumeRange.lowerBound), PlaybackSession.volumeRange.upperBound)
        control?.setVolume(volume)
    }

    /// Kept within `PlaybackSession.rateRange`.
    public func setRate(_ value: Double) {
        rate = min(max(value, PlaybackSession.rateRange.lowerBound), PlaybackSession.rateRange.upperBound)
        moved(to: timePosition ?? 0)
        control?.setRate(rate)
    }

    /// Seeks within the playing file (past its end: the next file, as a relative seek does in the session); false
    /// when nothing seekable plays.
    public func seek(to seconds: Double) -> Bool {
        guard let control, let playing, !playing.file.isStream else { return false }
        if let duration = playing.duration, seconds >= duration {
            movingOn = true
            control.seek(by: seconds - (timePosition ?? 0))
        } else {
            control.seek(to: max(0, seconds))
        }
        return true
    }

    /// Moves to the next (`by` 1) or previous (-1) file; false when there is none.
    public func skip(by step: Int) -> Bool {
        guard let control, step > 0 ? hasNext : hasPrevious else { return false }
        movingOn = true
        step > 0 ? control.next() : control.previous()
        return true
    }

    /// Plays the file at `index` of the list; false when there is none.
    public func play(index: Int) -> Bool {
        guard let control, index >= 0, index < entries.count else { return false }
        movingOn = true
        control.jump(to: index)
        return true
    }

    /// Plays `path` instead of the list (`replace`) or after it; returns its entry id. Check it first
    /// (`checkPlayable`).
    public func load(_ path: String, replace: Bool) -> Int {
        if replace {
            entries = []
            movingOn = true
        }
        addEntries([path])
        control?.load([path], replace: replace)
        return nextEntryID - 1
    }

    /// Each file repeats, or not, from the end of the playing one; false while a pipe plays (it cannot replay).
    public func setLoopFile(_ on: Bool) -> Bool {
        guard let control, playing?.file.isStream != true else { return false }
        repeatEachFile = on
        control.setLoopFile(on)
        return true
    }

    /// Passes through the list from the playing one's on: nil for ever, 1 for this one only; false while a pipe
    /// plays.
    public func setLoopPlaylist(passes: Int?) -> Bool {
        guard let control, playing?.file.isStream != true else { return false }
        self.passes = passes
        control.setLoopPlaylist(passes: passes)
        return true
    }

    /// What follows the playing file, in a random order or as given.
    public func setShuffle(_ on: Bool) {
        shuffle = on
        control?.setShuffle(on)
    }

    public func stop() { control?.stop(.requested) }

    /// Only a regular file whose WAV header reads: nothing else (a URL, a device, a pipe, another format) is opened.
    public static func isPlayable(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && (try? WAVFile.open(path: path)) != nil
    }

    /// The header of the WAV file at `path`; only a regular file is opened (never a pipe, which it would consume).
    public static func header(ofFile path: String) -> WAVFile? {
        var status = stat()
        guard stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? WAVFile.open(path: path).file
    }

    public static func filename(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// LIST/INFO ids under the names mpv gives these tags (through FFmpeg's WAV demuxer).
    static let infoNames = [
        "INAM": "title", "IART": "artist", "IPRD": "album", "ICMT": "comment", "ICRD": "date", "IGNR": "genre",
        "ITRK": "track", "IPRT": "track", "ISFT": "encoder", "ICOP": "copyright", "IENG": "engineer",
        "ITCH": "technician", "ISBJ": "subject", "IKEY": "keywords",
    ]

    static func metadata(_ info: [WAVMetadata.InfoEntry]) -> [(String, String)] {
        var seen = Set<String>()
        return info.compactMap { entry in
            guard let name = infoNames[entry.id], seen.insert(name).inserted else { return nil }
            return (name, entry.value)
        }
    }
}
