import Glibc
import KioskDisplay
import KioskSystem

/// `kiosk-player render SCREEN --size WxH --out FILE.png`: draws one screen to a PNG file.
enum RenderCommand {
    static let name = "render"

    static var command: Command {
        Command(
            name: name,
            summary: "draw a screen to a PNG file",
            help: """
                Usage: kiosk-player render SCREEN --size WxH --out FILE.png [OPTIONS]

                Draws one screen exactly as the player would show it and writes it as a PNG.
                SCREEN is one of: \(ScreenState.screenNames.joined(separator: ", ")).

                Options:
                  --size WxH         screen size in pixels, e.g. 240x240, 320x240, 480x320 (required)
                  --out FILE.png     where to write the picture (required)
                  --state JSON       the screen's state as a JSON object, or @FILE to read it from a file;
                                     keys are the state's property names (title, artist, elapsedSeconds,
                                     items[].title …). Without it a sample state is drawn.
                  --artwork FILE     a JPEG or PNG to show as the artwork of every artworkKey
                  --theme NAME       dark (default) or light

                """,
            run: run)
    }

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try ParsedArguments(
            args, command: name, options: ["--size", "--out", "--state", "--artwork", "--theme"])
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
        guard let sizeText = parsed.value("--size") else {
            throw UsageError(command: name, message: "--size WxH is required")
        }
        guard let size = Size(parsing: sizeText), (16...4096).contains(size.width), (16...4096).contains(size.height)
        else {
            throw UsageError(command: name, message: "--size must be WIDTHxHEIGHT (16…4096 each), not '\(sizeText)'")
        }
        guard let out = parsed.value("--out") else {
            throw UsageError(command: name, message: "--out FILE.png is required")
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
        let surface = PNGSurface(path: out, width: size.width, height: size.height)
        do { try surface.present(canvas, damage: [canvas.bounds]) } catch {
            throw ToolError("cannot write \(out): \(error)")
        }
        return 0
    }
}
