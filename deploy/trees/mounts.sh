# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the scripts that mount things inside a directory tree (deploy/trees/tree.sh,
# deploy/tests/test-install-debootstrap.sh): one place that knows what is mounted under a path, takes
# it down, and deletes a tree only when nothing is mounted inside it (an rm -rf through a bind-mounted
# /dev would delete this machine's device files).
#
#   mounts_under DIR     the mount points at or below DIR, deepest first (from /proc/self/mountinfo)
#   unmount_under DIR    unmounts them all (lazily when busy); fails if any is left
#   processes_in DIR [NAME...]  pids whose root (a chroot) or working directory is DIR or below,
#                        only those whose command is one of NAMEs when given
#   stop_processes_in DIR  TERM, then KILL, what still runs in DIR (apt runs dpkg in a session of its
#                        own: killing a build's process group leaves it unpacking into the tree)
#   remove_tree DIR      stop_processes_in and unmount_under DIR, then rm -rf DIR; refuses (fails,
#                        deletes nothing) when a process or a mount is still there

mounts_under() {
    local dir
    dir=$(realpath -m "$1")
    # Field 5 is the mount point, with spaces and the like written as octal escapes (\040).
    awk -v d="$dir" '{
        p = $5
        if (p == d || index(p, d "/") == 1) print length(p) "\t" p
    }' /proc/self/mountinfo | sort -rn | cut -f2- | while IFS= read -r p; do printf '%b\n' "$p"; done
}

unmount_under() {
    local p
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        umount "$p" 2>/dev/null || umount -l "$p" 2>/dev/null || true
    done < <(mounts_under "$1")
    [ -z "$(mounts_under "$1")" ]
}

processes_in() {
    local dir p link target name
    dir=$(realpath -m "$1")
    shift
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" != "$$" ] || continue
        for link in root cwd; do
            target=$(readlink "$p/$link" 2>/dev/null) || continue
            [ "$target" = "$dir" ] || [[ "$target" == "$dir"/* ]] || continue
            name=$(cat "$p/comm" 2>/dev/null) || break
            if [ $# -eq 0 ] || [[ " $* " == *" $name "* ]]; then echo "${p#/proc/}"; fi
            break
        done
    done
}

stop_processes_in() {
    local dir=$1 pids tries
    pids=$(processes_in "$dir")
    [ -n "$pids" ] || return 0
    echo "stopping what still runs in $dir: $(for p in $pids; do cat "/proc/$p/comm" 2>/dev/null; done | tr '\n' ' ')" >&2
    # shellcheck disable=SC2086  # one pid a word
    kill -TERM $pids 2>/dev/null || true
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        [ -n "$(processes_in "$dir")" ] || return 0
        [ "$tries" != 5 ] || kill -KILL $(processes_in "$dir") 2>/dev/null || true
        sleep 1
    done
    [ -z "$(processes_in "$dir")" ]
}

remove_tree() {
    local dir=$1
    [ -e "$dir" ] || return 0
    if ! stop_processes_in "$dir"; then
        echo "refusing to delete $dir: processes still run in it: $(processes_in "$dir" | tr '\n' ' ')" >&2
        return 1
    fi
    if ! unmount_under "$dir"; then
        echo "refusing to delete $dir: still mounted inside it: $(mounts_under "$dir" | tr '\n' ' ')" >&2
        return 1
    fi
    rm -rf --one-file-system "$dir"
}
