import CALSA

extension ALSAOutput {
    /// Whether the ALSA PCM `device` can be opened for playback right now; the error text if not.
    /// Opens non-blocking and closes at once (for the demo's "default, else none" choice and the
    /// output menu). libasound's own messages about the failure are silenced for this thread: the
    /// returned text says what failed. Thread: any but the audio threads.
    public static func probe(device: String) -> String? {
        let silent: snd_local_error_handler_t = { _, _, _, _, _, _ in }
        let previous = snd_lib_error_set_local(silent)
        defer { _ = snd_lib_error_set_local(previous) }
        var pcm: OpaquePointer?
        let rc = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        if rc < 0 { return String(cString: snd_strerror(rc)) }
        snd_pcm_close(pcm)
        return nil
    }
}
