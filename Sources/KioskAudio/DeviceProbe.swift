import CALSA

extension ALSAOutput {
    /// Whether the ALSA PCM `device` can be opened for playback right now; the error text if not.
    /// Opens non-blocking and closes at once (for the demo's "default, else none" choice and the
    /// output menu). Thread: any but the audio threads.
    public static func probe(device: String) -> String? {
        var pcm: OpaquePointer?
        let rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        if rc < 0 { return String(cString: snd_strerror(rc)) }
        snd_pcm_close(pcm)
        return nil
    }
}
