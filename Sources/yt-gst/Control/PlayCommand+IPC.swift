// yt-gst — `play --input-ipc-server` and MPRIS: the surfaces opened before the session, on one model of it.
import AppSrcFeeder
import Control

extension PlayCommand {
    /// The MPRIS service, on the session bus when there is one (silently none otherwise) unless `--no-mpris`.
    /// The desktop may then set the volume and the rate, so the pipeline gets their elements.
    func openMPRIS(
        for model: PlaybackModel, configuration: inout PlaybackSession.Configuration
    ) -> PlaybackMPRIS? {
        guard mpris, let published = PlaybackMPRIS(model: model) else { return nil }
        configuration.processing.volume = true
        configuration.processing.tempo = true
        return published
    }
}
