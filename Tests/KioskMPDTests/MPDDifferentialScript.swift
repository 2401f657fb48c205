// SPDX-License-Identifier: GPL-3.0-or-later
/// The exchanges the differential test sends to both servers, one a line, in scenes.
///
/// - `# name` starts a scene: both servers are first reset out of the script (stop, clear, modes
///   off, volume 50, all tag types), so one difference does not run on through the rest.
/// - `A ; B ; C` is one exchange of several lines (command lists).
/// - `~command`: the answer is compared as a sorted set of lines (MPD leaves its order open).
/// - `$ mpc ARGS`: mpc run on the server; its output, errors and exit status compared.
/// - `@mark NAME` remembers the playlist version; `@send LINE` sends LINE (nothing is compared).
/// - Placeholders, each replaced by the server's own value: `{id@N}` the song id at position N,
///   `{songid}` the current song's, `{added}`/`{added-1}` the ids `addid` answered last,
///   `{mark:NAME}` a remembered version.
///
/// What the script covers: every command MPD clients send (mpc, ncmpcpp, M.A.L.P., MPDroid,
/// Cantata), with ranges, relative positions, filters, `group`, errors; MPDroid's crop and reorder.
/// Thread: any.
/// Nothing whose answer is random on either server (the order after `shuffle` is compared as a
/// set; `status` after it would name a random next song; the next song in random mode, which
/// priorities decide in MPD, is random while they are missing).
enum DifferentialScript {
    static let text = #"""
        # status
        status
        currentsong
        stats
        ping

        # queue add and delete
        add "USBSTICK/Aurora Quartet/Northern Lights"
        add "USBSTICK/Kid Kilo/Night Drive/02 Neon.flac" 0
        status
        currentsong
        playlistinfo
        playlistid
        playlistinfo 2
        playlistinfo 1:3
        playlistinfo 99
        playlistid {id@1}
        playlistid 999999
        playlist
        addid "USBSTICK/Loose/duet.flac"
        addid "USBSTICK/Loose/untagged.flac" 1
        addid "USBSTICK/Loose/duet.flac" +0
        add "USBSTICK/Loose/duet.flac" -1
        addid "USBSTICK/Loose/duet.flac" 99
        playlistinfo
        delete 0
        delete 1:3
        delete 99
        delete 3:1
        deleteid {added}
        deleteid {added-1}
        deleteid 999999
        playlistinfo
        status
        clear
        playlistinfo
        status

        # the current song
        add "USBSTICK/Kid Kilo/Night Drive"
        status
        play 2
        status
        currentsong
        addid "USBSTICK/Loose/duet.flac" +0
        add "USBSTICK/Loose/untagged.flac" -0
        add "USBSTICK/Classical/Bach/Goldberg Variations/01 Aria.flac" +2
        playlistinfo
        status
        deleteid {added}
        pause 1
        status
        pause 0
        status
        pause
        status
        stop
        status
        play
        status
        next
        status
        previous
        status
        playid {id@4}
        status
        currentsong
        seek 1 10
        status
        seekid {id@0} 5
        status
        seekcur +3
        seekcur -1
        seekcur 7
        status
        seek 99 1
        seekid 999999 1
        play 99
        playid 999999
        play -1
        stop
        status
        currentsong

        # idle
        @send idle ; noidle
        setvol 20
        ~idle ; noidle
        add "USBSTICK/Loose/duet.flac"
        repeat 1
        ~idle ; noidle
        idle ; noidle
        idle bogus

        # move and swap
        add "USBSTICK/Kid Kilo/Night Drive"
        add "USBSTICK/Aurora Quartet/Northern Lights"
        playlistid
        @mark start
        move 0 3
        playlistinfo
        move 1:3 5
        playlistinfo
        move 8 0
        move 9 0
        move 0 9
        plchangesposid {mark:start}
        play 4
        move 0 +1
        playlistinfo
        move 0 -1
        playlistinfo
        status
        moveid {id@0} 2
        moveid {songid} 0
        status
        moveid {id@1} +2
        playlistinfo
        moveid 999999 0
        swap 0 1
        swapid {id@2} {id@3}
        swap 0 99
        playlistinfo
        status
        plchanges {mark:start}
        plchangesposid {mark:start}
        plchanges 0
        plchanges 999999
        plchangesposid 0 2:4
        stop

        # MPDroid crop and reorder
        add "USBSTICK/Kid Kilo/Night Drive"
        add "USBSTICK/Aurora Quartet/Northern Lights"
        playlistid
        play 3
        moveid {songid} 0
        delete 1:9
        playlistinfo
        status
        add "USBSTICK/Kid Kilo/Night Drive"
        playlistid
        moveid {id@5} 1
        moveid {id@0} 4
        moveid {id@2} 3
        playlistinfo
        status
        command_list_begin ; moveid {songid} 0 ; delete 1:6 ; command_list_end
        playlistinfo

        # shuffle and priorities
        add "USBSTICK/Kid Kilo/Night Drive"
        add "USBSTICK/Aurora Quartet/Northern Lights"
        playlistid
        shuffle 0:3
        playlistinfo 3:9
        ~playlistinfo 0:3
        play 5
        shuffle
        currentsong
        ~playlistinfo
        shuffle 5:2
        stop
        clear
        add "USBSTICK/Kid Kilo/Night Drive"
        prio 10 0:2
        prioid 20 {id@3}
        playlistinfo
        prio 300 0
        prio 5 99
        prioid 1 999999
        rangeid {id@0} 1.0:2.5
        playlistinfo 0
        rangeid {id@0} :
        playlistinfo 0
        rangeid {id@0} 3:1

        # playlist search
        add "USBSTICK/Various/Summer Sampler"
        add "USBSTICK/Aurora Quartet/Northern Lights"
        playlistfind artist "Aurora Quartet"
        playlistfind album "Coastline"
        playlistsearch title "o"
        playlistsearch any "kilo"
        playlistfind "(album == 'Summer Sampler')"
        playlistsearch "(Title contains 'POOL')"
        playlistfind bogus x
        playlistfind artist
        $ mpc searchplay title Heatwave
        status

        # modes
        repeat 1
        single 1
        consume 1
        status
        single oneshot
        status
        single 0
        consume 0
        repeat 0
        random 1
        status
        random 0
        repeat 2
        single bogus
        consume
        status

        # volume, crossfade, replay gain
        setvol 30
        status
        getvol
        volume +10
        getvol
        volume -5
        getvol
        setvol 101
        setvol -1
        setvol abc
        volume 200
        getvol
        crossfade 5
        status
        crossfade 0
        crossfade -1
        mixrampdb -17
        mixrampdelay 2
        status
        mixrampdelay nan
        mixrampdb 0
        status
        replay_gain_status
        replay_gain_mode track
        replay_gain_status
        replay_gain_mode bogus
        replay_gain_mode off
        replay_gain_status

        # list
        list artist
        list albumartist
        list album
        list album artist "Aurora Quartet"
        list album albumartist "Aurora Quartet"
        list album group albumartist
        list album group date
        list albumartist group date
        list title "(album == 'Coastline')"
        list genre
        list composer
        list performer
        list date
        list artistsort
        list albumartistsort
        list file "(album == 'Coastline')"
        list track "(album == 'Summer Sampler')"
        list disc
        list bogus
        list

        # find and search
        find artist "Aurora Quartet"
        find album "Live at the Lighthouse" albumartist "Aurora Quartet"
        find album "Northern Lights" albumartist "Aurora Quartet"
        find albumartist "Aurora Quartet"
        find albumartist "Various Artists"
        find "(artist == 'Björk Ensemble')"
        find "(composer == 'Johann Sebastian Bach')"
        find artist "Kid Kilo" sort title
        find "(album == 'Summer Sampler')" sort -track
        find "(genre != 'Jazz')" window 0:2
        find any "Gulls"
        find title "Duet"
        find "(file == 'USBSTICK/Loose/untagged.flac')"
        find base "USBSTICK/Classical"
        find "(base 'USBSTICK/Classical')"
        find "(modified-since '2000-01-01T00:00:00Z')" window 0:1
        find "(AudioFormat == '8000:16:1')" window 0:1
        find "((artist == 'Kid Kilo') AND (album == 'Night Drive'))" window 1:3
        find "(!(genre == 'Jazz'))" window 0:1
        search any "gulls"
        search title "o" window 0:3
        search "(artist contains 'kilo')"
        search albumartist "recorders"
        search "(title =~ '^S')"
        count artist "Aurora Quartet"
        count group artist
        count group albumartist
        count "(genre == 'Jazz')"
        count albumartist "Aurora Quartet"
        search title
        find
        find "(artist == )"
        find bogus x

        # findadd and searchadd
        findadd album "Coastline"
        playlistinfo
        searchadd title "night"
        playlistinfo
        findadd "(album == 'Summer Sampler')" position 0
        playlistinfo
        searchadd "(title contains 'echo')" sort title
        status
        findadd albumartist "Aurora Quartet"
        status

        # browse
        lsinfo
        lsinfo ""
        lsinfo /
        lsinfo USBSTICK
        lsinfo "USBSTICK/Kid Kilo"
        lsinfo "USBSTICK/Classical/Bach"
        lsinfo "USBSTICK/Björk Ensemble/Café Nocturne"
        lsinfo "USBSTICK/Loose/untagged.flac"
        lsinfo nothere
        lsinfo "USBSTICK/../.."
        listall "USBSTICK/Loose"
        listall "USBSTICK/Kid Kilo"
        listallinfo "USBSTICK/Kid Kilo/Singles"
        listallinfo "USBSTICK/Loose/duet.flac"
        listall nothere
        listfiles "USBSTICK/Loose"

        # stored playlists
        ~listplaylists
        listplaylist "USBSTICK/Mix.m3u8"
        listplaylistinfo "USBSTICK/Mix.m3u8"
        listplaylist "USBSTICK/Kid Kilo/Best of.m3u8"
        load "USBSTICK/Mix.m3u8"
        load "USBSTICK/Mix.m3u8" 1:2
        load "USBSTICK/Mix.m3u8" 0:1 0
        playlistinfo
        save Saved
        ~listplaylists
        listplaylist Saved
        save Saved
        playlistadd Saved "USBSTICK/Loose/untagged.flac"
        listplaylist Saved
        playlistadd Fresh "USBSTICK/Kid Kilo/Night Drive"
        listplaylist Fresh
        playlistdelete Fresh 0
        playlistmove Fresh 1 0
        listplaylist Fresh
        playlistdelete Fresh 99
        playlistclear Fresh
        listplaylist Fresh
        rename Fresh Renamed
        rename Renamed Saved
        ~listplaylists
        searchaddpl Renamed "(album == 'Coastline')"
        listplaylistinfo Renamed
        clear
        load Renamed 0:1
        load Renamed 1: 0
        playlistinfo
        rm Renamed
        rm Renamed
        rm Saved
        ~listplaylists
        load nothere
        listplaylist nothere

        # stickers
        sticker set song "USBSTICK/Loose/untagged.flac" rating 5
        sticker get song "USBSTICK/Loose/untagged.flac" rating
        sticker set song "USBSTICK/Loose/untagged.flac" played 2
        ~sticker list song "USBSTICK/Loose/untagged.flac"
        sticker set song "USBSTICK/Aurora Quartet/Northern Lights/01 Polar Night.flac" rating 3
        ~sticker find song "USBSTICK" rating
        sticker find song "" rating = 5
        sticker find song "USBSTICK" rating > 3
        sticker find song "USBSTICK/Aurora Quartet" rating < 4
        sticker delete song "USBSTICK/Loose/untagged.flac" rating
        sticker get song "USBSTICK/Loose/untagged.flac" rating
        sticker delete song "USBSTICK/Loose/untagged.flac"
        sticker list song "USBSTICK/Loose/untagged.flac"
        sticker get song nothere rating
        sticker set album x y z
        sticker bogus song x
        sticker delete song "USBSTICK/Aurora Quartet/Northern Lights/01 Polar Night.flac" rating

        # tag types
        tagtypes
        add "USBSTICK/Classical/Bach/Goldberg Variations/01 Aria.flac"
        playlistinfo 0
        tagtypes disable Artist Album
        playlistinfo 0
        tagtypes enable Album
        playlistinfo 0
        tagtypes clear
        playlistinfo 0
        tagtypes
        tagtypes enable Title Composer
        playlistinfo 0
        tagtypes all
        tagtypes disable bogus
        tagtypes bogus

        # client and server
        commands
        notcommands
        outputs
        decoders
        urlhandlers
        binarylimit 64
        binarylimit 1
        binarylimit 99999999
        binarylimit 8192
        albumart "USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac" 0
        albumart "USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac" 1000
        readpicture "USBSTICK/The Field Recorders/Coastline/01 Low Tide.flac" 0
        albumart "USBSTICK/Loose/untagged.flac" 0
        albumart nothere 0
        clearerror

        # command lists
        command_list_begin ; add "USBSTICK/Loose/duet.flac" ; status ; command_list_end
        command_list_ok_begin ; add "USBSTICK/Loose/untagged.flac" ; playlistinfo 1 ; command_list_end
        command_list_ok_begin ; status ; bogus ; status ; command_list_end
        command_list_begin ; add "USBSTICK/Loose/duet.flac" ; play 99 ; add "USBSTICK/Loose/untagged.flac" ; command_list_end
        playlistinfo
        command_list_begin ; command_list_end
        command_list_ok_begin ; addid "USBSTICK/Loose/duet.flac" ; addid "USBSTICK/Loose/duet.flac" ; command_list_end

        # errors
        bogus
        status extra
        play abc
        add
        move 0
        delete abc
        setvol
        lsinfo "unterminated
        play 1 2 3
        find artist "Kid Kilo" sort
        list album group
        consume 2
        random x

        # mpc
        $ mpc add "USBSTICK/Kid Kilo/Night Drive"
        $ mpc playlist
        $ mpc status
        $ mpc current
        $ mpc queued
        $ mpc insert "USBSTICK/Loose/duet.flac"
        $ mpc play 2
        $ mpc current
        $ mpc queued
        $ mpc insert "USBSTICK/Loose/untagged.flac"
        $ mpc playlist
        $ mpc del 1
        $ mpc move 1 4
        $ mpc playlist
        $ mpc next
        $ mpc prev
        $ mpc pause
        $ mpc play
        $ mpc seek 10
        $ mpc seek +5
        $ mpc toggle
        $ mpc toggle
        $ mpc cdprev
        $ mpc pause-if-playing
        $ mpc prio 5 1
        $ mpc stop
        $ mpc random on
        $ mpc repeat on
        $ mpc single on
        $ mpc consume on
        $ mpc random off
        $ mpc repeat off
        $ mpc single off
        $ mpc consume off
        $ mpc volume 40
        $ mpc volume +5
        $ mpc volume
        $ mpc play 3
        $ mpc crop
        $ mpc playlist
        $ mpc add "USBSTICK/Aurora Quartet/Northern Lights"
        $ mpc save mpcsaved
        $ mpc lsplaylists
        $ mpc clear
        $ mpc load mpcsaved
        $ mpc playlist
        $ mpc rm mpcsaved
        $ mpc lsplaylists
        $ mpc shuffle
        $ mpc ls
        $ mpc ls USBSTICK
        $ mpc ls "USBSTICK/Kid Kilo"
        $ mpc find album "Coastline"
        $ mpc find albumartist "Aurora Quartet"
        $ mpc search title "o"
        $ mpc findadd album "Coastline"
        $ mpc searchadd title "echo"
        $ mpc playlist "USBSTICK/Mix.m3u8"
        $ mpc list album
        $ mpc list albumartist
        $ mpc list album group albumartist
        $ mpc listall "USBSTICK/Loose"
        $ mpc stats
        $ mpc outputs
        $ mpc crossfade
        $ mpc crossfade 3
        $ mpc crossfade 0
        $ mpc replaygain
        $ mpc mixrampdb
        $ mpc mixrampdelay
        $ mpc clearerror
        $ mpc sticker "USBSTICK/Loose/duet.flac" set rating 4
        $ mpc sticker "USBSTICK/Loose/duet.flac" list
        $ mpc sticker "USBSTICK/Loose/duet.flac" delete rating
        $ mpc version
        $ mpc bogus
        $ mpc play 99
        $ mpc stop
        """#

    /// One exchange of the script.
    struct Exchange: Sendable {
        enum Kind: Sendable, Equatable {
            case protocolLines(sorted: Bool)
            case mpc
            case mark
            case unchecked
        }
        /// `scene: line`, with ` #N` from a line's second appearance in the scene on.
        let key: String
        let scene: String
        let line: String
        let kind: Kind
        /// The MPD commands the exchange sends (mpc's: `mpc SUBCOMMAND`).
        let commands: [String]
    }

    static func exchanges() -> [Exchange] {
        var result: [Exchange] = []
        var scene = ""
        var seen: [String: Int] = [:]
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingLeadingSpaces()
            if line.isEmpty { continue }
            if line.hasPrefix("# ") {
                scene = String(line.dropFirst(2))
                seen = [:]
                continue
            }
            seen[line, default: 0] += 1
            let key = "\(scene): \(line)" + (seen[line]! > 1 ? " #\(seen[line]!)" : "")
            if line.hasPrefix("@mark ") {
                result.append(Exchange(key: key, scene: scene, line: line, kind: .mark, commands: []))
            } else if line.hasPrefix("@send ") {
                result.append(Exchange(key: key, scene: scene, line: line, kind: .unchecked, commands: []))
            } else if line.hasPrefix("$ mpc ") {
                let arguments = splitArguments(String(line.dropFirst(6)))
                result.append(
                    Exchange(
                        key: key, scene: scene, line: line, kind: .mpc, commands: ["mpc " + (arguments.first ?? "")])
                )
            } else {
                let sorted = line.hasPrefix("~")
                let body = sorted ? String(line.dropFirst()) : line
                let commands = body.splitOn(" ; ").map { String($0.prefix { $0 != " " }) }
                result.append(
                    Exchange(
                        key: key, scene: scene, line: body, kind: .protocolLines(sorted: sorted), commands: commands))
            }
        }
        return result
    }
}

extension Substring {
    func trimmingLeadingSpaces() -> String { String(drop { $0 == " " }) }
}

extension String {
    /// `self` split at every occurrence of `separator` (no Foundation in the tests).
    func splitOn(_ separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
