// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
// SPDX-License-Identifier: GPL-3.0-or-later
import KioskCommandLine
import KioskDisplay
import KioskModel
import KioskSystem

/// `kiosk-player render SCREEN --size WxH --out FILE.png`: draws one screen to a PNG file.
enum RenderCommand {
    static let name = "render"

    static var command: Command {
        Command(
            name: name,
            summary: "draw a screen to a PNG file",
            synopsis: [
                "SCREEN --size WxH --out FILE.png [OPTIONS]",
                "SCREEN --framebuffer DEVICE [--out FILE.png] [OPTIONS]",
            ],
            description: """
                Draws one screen exactly as the player would show it and writes it as a PNG,
                or shows it on a framebuffer (the size is then the framebuffer's).
                SCREEN is one of: \(ScreenState.screenNames.joined(separator: ", ")).

                """,
            options: [
                .text("--size", "WxH", "screen size in pixels, e.g. 240x240, 320x240, 480x320"),
                .text("--out", "FILE.png", "where to write the picture"),
                .text(
                    "--framebuffer", "DEV",
                    """
                    also show it on this framebuffer (/dev/fb0), or on the one whose
                    /sys/class/graphics/fbN/name is NAME when given as name:NAME
                    """),
                .integer("--rotation", "DEG", 0...270, "framebuffer rotation: 0, 90, 180 or 270 (default 0)"),
                .text(
                    "--state", "JSON",
                    """
                    the screen's state as a JSON object, or @FILE to read it from a file;
                    keys are the state's property names (title, artist, elapsedSeconds,
                    items[].title …). Without it a sample state is drawn.
                    """),
                .text("--artwork", "FILE", "a JPEG or PNG to show as the artwork of every artworkKey"),
                .text("--theme", "NAME", "dark (default) or light"),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positionals.count == 1, let screen = parsed.positionals.first else {
            throw UsageError(
                command: name,
                message: "give one SCREEN: \(ScreenState.screenNames.joined(separator: ", "))")
        }
        guard ScreenState.screenNames.contains(screen) else {
            throw UsageError(
                command: name,
                message: "unknown screen '\(screen)'; one of: \(ScreenState.screenNames.joined(separator: ", "))")
        }
        let out = parsed.value("--out")
        let rotation = parsed.int("--rotation") ?? 0
        guard [0, 90, 180, 270].contains(rotation) else {
            throw UsageError(command: name, message: "--rotation must be 0, 90, 180 or 270, not \(rotation)")
        }
        var framebuffer: FramebufferSurface?
        if let device = parsed.value("--framebuffer") {
            var path = device
            if device.hasPrefix("name:") {
                let fbName = String(device.dropFirst(5))
                guard let found = FramebufferSurface.find(name: fbName) else {
                    throw ToolError("no framebuffer named '\(fbName)' under /sys/class/graphics")
                }
                path = found
            }
            framebuffer = try FramebufferSurface.open(device: path, rotation: rotation, console: nil)
        }
        guard out != nil || framebuffer != nil else {
            throw UsageError(command: name, message: "--out FILE.png (or --framebuffer DEVICE) is required")
        }
        var size: Size
        if let sizeText = parsed.value("--size") {
            guard let parsedSize = Size(parsing: sizeText), (16...4096).contains(parsedSize.width),
                (16...4096).contains(parsedSize.height)
            else {
                throw UsageError(
                    command: name, message: "--size must be WIDTHxHEIGHT (16…4096 each), not '\(sizeText)'")
            }
            size = parsedSize
            if let framebuffer, framebuffer.width != size.width || framebuffer.height != size.height {
                throw ToolError(
                    "--size \(size) differs from the framebuffer's \(framebuffer.width)x\(framebuffer.height)")
            }
        } else if let framebuffer {
            size = Size(width: framebuffer.width, height: framebuffer.height)
        } else {
            throw UsageError(command: name, message: "--size WxH is required")
        }
        let themeName = parsed.value("--theme") ?? "dark"
        guard let theme = Theme.named(themeName) else {
            throw UsageError(command: name, message: "--theme must be dark or light, not '\(themeName)'")
        }

        var reader: JSONReader?
        if let text = parsed.value("--state") {
            if text.hasPrefix("@") {
                let path = String(text.dropFirst())
                let bytes: [UInt8]
                do { bytes = try Syscalls.readFile(path, limit: 16 << 20) } catch {
                    throw ToolError("cannot read the state file: \(error)")
                }
                reader = try JSONReader.parse(bytes, file: path)
            } else {
                reader = try JSONReader.parse(Array(text.utf8), file: "--state")
            }
        }
        let state = try ScreenState.parse(screen: screen, reader)

        var artworkBytes: [UInt8]?
        if let path = parsed.value("--artwork") {
            do { artworkBytes = try Syscalls.readFile(path, limit: ImageLimits.default.maxInputBytes) } catch {
                throw ToolError("cannot read the artwork: \(error)")
            }
        }
        let artworkPath = parsed.value("--artwork") ?? ""
        var decoded: [Size: Image] = [:]
        let lookup: ScreenRenderer.ArtworkLookup = { key, size in
            if let image = decoded[size] { return image }
            var image: Image?
            if let bytes = artworkBytes {
                do {
                    image = try ImageDecoder.decode(bytes, target: .fill(size))
                } catch {
                    Log.warning("\(artworkPath): \(error); showing the placeholder")
                }
            } else if key == SampleScreens.artworkKey {
                image = SampleScreens.artwork().resized(.fill(size))
            }
            decoded[size] = image
            return image
        }

        let fonts = try FontSet.load()
        let canvas = Canvas(width: size.width, height: size.height)
        ScreenRenderer(fonts: fonts, theme: theme).render(state, on: canvas, artwork: lookup)
        if let out {
            let surface = PNGSurface(path: out, width: size.width, height: size.height)
            do { try surface.present(canvas, damage: [canvas.bounds]) } catch {
                throw ToolError("cannot write \(out): \(error)")
            }
        }
        try framebuffer?.present(canvas, damage: [canvas.bounds])
        return 0
    }
}
