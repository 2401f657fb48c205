// SPDX-License-Identifier: GPL-3.0-or-later
import KioskAudio
import KioskCommandLine

/// `kiosk-player speak [--data DIR]`: the speech helper process the player starts itself
/// (`SpeechHelper`): texts on standard input, PCM on standard output, espeak-ng confined to its
/// voice data. Not for use by hand.
enum SpeakCommand {
    static var command: Command {
        Command(
            name: "speak",
            summary: "the speech helper process the player starts (not for use by hand)",
            synopsis: ["[--data DIR]"],
            description: """
                Runs libespeak-ng for the player in a process of its own, with a memory limit, no
                file writes and (where the kernel has Landlock) no file reads but its voice data: a
                crash or hang of the speech library costs one prompt, never the player. Reads
                requests on standard input and answers on standard output in the player's own
                format; exits when standard input ends.

                """,
            options: [.text("--data", "DIR", "espeak-ng-data's parent folder (default: the installed one)")],
            run: { parsed in SpeechHelper.serve(dataPath: parsed.value("--data")) })
    }
}
