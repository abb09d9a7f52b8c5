#!/usr/bin/env bash
# Install card-assistant as a service on Raspberry Pi OS Bookworm (aarch64 or armv7).
#
#   sudo systemd/install.sh              install, or upgrade in place (safe to run again)
#   sudo systemd/install.sh --uninstall  remove the service and the venv; keep the journal
#   systemd/install.sh --dry-run         print every step, change nothing (any Linux, any user)
#   sudo systemd/install.sh --board [--club NAME] [--tables t1,t2,...|N] [--port 8030]
#                                        the club's results board and its Mosquitto (docs/club.md)
#   sudo systemd/install.sh --board --uninstall   remove the board and its broker settings
#
# Run it from a checkout of the project: it installs the package from a copy of that checkout, so
# the checkout itself is left as it was (still yours for `python3 dev.py run`). It needs internet
# access (apt and PyPI) and about 150 MB of disk. Every step checks what is already there, so
# running it again after a failure (or to upgrade) is safe; a failure names the step and the state.
#
# What it does, in order:
#   packages  apt: python3-lgpio (GPIO for gpiozero on every Pi, the Pi 5 included),
#             python3-venv, i2c-tools
#   groups    gpio, i2c, dialout (created only if missing)
#   user      system user card-assistant, member of those groups
#   venv      /opt/card-assistant/venv with --system-site-packages, so the apt python3-lgpio
#             is importable (Bookworm's Python is "externally managed" (PEP 668): pip only ever
#             runs inside this venv, never on the system Python)
#   pip       the package, from a temporary copy of this checkout, into the venv; the command
#             /usr/local/bin/card-assistant (a link into the venv), so `card-assistant` works
#   udev      hardware/99-card-assistant-reader.rules -> /etc/udev/rules.d (/dev/card-reader)
#   modules   i2c-dev and cdc_acm loaded at every boot (the unit's device ACL names their classes)
#   i2c       I2C on at 400 kHz in config.txt (raspi-config too, where it is installed)
#   config    /etc/card-assistant/config.toml from the example, only if it does not exist yet
#   service   the unit into /etc/systemd/system, enabled, (re)started; a reboot is asked for when
#             I2C is not on yet (the service runs meanwhile and waits for the screen)
#
# With --board, on the Pi that runs the club's broker and board (docs/club.md), instead:
#   packages  apt: mosquitto, python3-venv
#   venv, pip as above
#   user      system user card-assistant-board (the board's service runs as it)
#   accounts  a random password for the board and for every table (--tables; kept on a second
#             run, new tables added) in /etc/card-assistant/club-passwords (root only, 0600);
#             the board's own also in board-password (0640, readable by its service's group)
#   mosquitto /etc/mosquitto/conf.d/card-assistant.conf: a listener on 1883, no anonymous clients,
#             a password file and an ACL (a table writes only club/CLUB/TABLE/#, the board only
#             reads club/CLUB/#), both readable by the mosquitto user only, messages of 1 MiB at
#             most; mosquitto restarted.
#             TLS: with /etc/mosquitto/certs/card-assistant.crt and .key in place (docs/club.md),
#             the boxes get a TLS listener on 8883 and 1883 is only for the board, on 127.0.0.1
#   board     /etc/card-assistant/board.env (broker, club, port) and board-password (0600), then
#             card-assistant-board.service installed, enabled, (re)started
set -Eeuo pipefail

# DESTDIR (empty on a real install) puts every file this script writes or removes under another
# root. Only the files: apt-get, useradd, systemctl and the like still act on this machine, so
# tests/test_systemd.py sets it together with stand-ins for those commands on PATH.
DESTDIR=${DESTDIR:-}
APP=card-assistant
PREFIX=$DESTDIR/opt/card-assistant
VENV=$PREFIX/venv
CONF_DIR=$DESTDIR/etc/card-assistant
CONF=$CONF_DIR/config.toml
STATE_DIR=/var/lib/card-assistant
UNIT_DST=$DESTDIR/etc/systemd/system/card-assistant.service
WEB_UNIT_DST=$DESTDIR/etc/systemd/system/card-assistant-web.service
UDEV_DST=$DESTDIR/etc/udev/rules.d/99-card-assistant-reader.rules
MODULES_DST=$DESTDIR/etc/modules-load.d/card-assistant.conf
BOARD_UNIT_DST=$DESTDIR/etc/systemd/system/card-assistant-board.service
CMD_LINK=$DESTDIR/usr/local/bin/card-assistant  # the command the docs and the box's log lines name
BOARD_ENV=$CONF_DIR/board.env
BOARD_PW=$CONF_DIR/board-password
CLUB_PW=$CONF_DIR/club-passwords
MQ_DIR=$DESTDIR/etc/mosquitto
MQ_CONF=$MQ_DIR/conf.d/card-assistant.conf
MQ_PASSWD=$MQ_DIR/card-assistant.passwd
MQ_ACL=$MQ_DIR/card-assistant.acl
MQ_CERT=$MQ_DIR/certs/card-assistant.crt
MQ_KEY=$MQ_DIR/certs/card-assistant.key
BOARD_STATE=/var/lib/card-assistant-board
GROUPS_NEEDED=(gpio i2c dialout)
APT_PACKAGES=(python3-lgpio python3-venv i2c-tools)
I2C_BEGIN="# card-assistant-i2c-begin (I2C for the OLED at 400 kHz; managed by install.sh)"
I2C_END="# card-assistant-i2c-end"

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UNIT_SRC=$SRC/systemd/card-assistant.service
WEB_UNIT_SRC=$SRC/systemd/card-assistant-web.service
BOARD_UNIT_SRC=$SRC/systemd/card-assistant-board.service
UDEV_SRC=$SRC/hardware/99-card-assistant-reader.rules
EXAMPLE=$SRC/assistant/config.example.toml

# pip runs as root, but only inside the venv: no root warning, no nagging about its own version
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1

DRY_RUN=0
MODE=install
STEP=0
STEP_NAME=""
STEPS_DONE=()
STEP_HINT=""
REBOOT_NEEDED=""
BUILD=""
RUNNING=""

BOARD=0
CLUB=""
TABLES=""
BOARD_PORT=""
NAME_RE='^[A-Za-z0-9_-]{1,40}$'  # a club's or a table's name: one MQTT topic level (as the box's config)

usage() {
    sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

bad_usage() { echo "install.sh: $*" >&2; usage >&2; exit 2; }

ARGS=("$@")
while [ $# -gt 0 ]; do
    case $1 in
        --dry-run) DRY_RUN=1 ;;
        --uninstall) MODE=uninstall ;;
        --board) BOARD=1 ;;
        --club|--tables|--port)
            [ $# -ge 2 ] || bad_usage "$1 needs a value"
            case $1 in --club) CLUB=$2 ;; --tables) TABLES=$2 ;; --port) BOARD_PORT=$2 ;; esac
            shift ;;
        -h|--help) usage; exit 0 ;;
        *) bad_usage "unknown option: $1" ;;
    esac
    shift
done
set -- "${ARGS[@]}"
if [ "$BOARD" -eq 0 ] && [ -n "$CLUB$TABLES$BOARD_PORT" ]; then
    bad_usage "--club, --tables and --port go with --board"
fi
if [ -n "$CLUB" ] && ! [[ $CLUB =~ $NAME_RE ]]; then
    bad_usage "--club $(printf %q "$CLUB"): letters, digits, - and _ only (1 to 40), as in the boxes' [club] club"
fi
if [ -n "$BOARD_PORT" ] && ! { [[ $BOARD_PORT =~ ^[0-9]{1,5}$ ]] && [ "$BOARD_PORT" -ge 1 ] && [ "$BOARD_PORT" -le 65535 ]; }; then
    bad_usage "--port $(printf %q "$BOARD_PORT") is not a port (1 to 65535)"
fi
TABLE_LIST=()
if [[ $TABLES =~ ^[0-9]{1,3}$ ]]; then
    for ((i = 1; i <= TABLES; i++)); do TABLE_LIST+=("t$i"); done
elif [ -n "$TABLES" ]; then
    IFS=, read -r -a TABLE_LIST <<< "$TABLES"
fi
for t in "${TABLE_LIST[@]}"; do
    if ! [[ $t =~ $NAME_RE ]] || [ "$t" = board ]; then
        bad_usage "--tables: $(printf %q "$t") is not a table name (letters, digits, - and _, not 'board'; or a count: --tables 10 is t1 to t10)"
    fi
done

say() { printf '%s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

step() {
    if [ -n "$STEP_NAME" ]; then
        STEPS_DONE+=("$STEP_NAME")
    fi
    STEP=$((STEP + 1))
    STEP_NAME=$1
    STEP_HINT=${3:-}
    say ""
    say "==> step $STEP [$1] $2"
}

# Any failing command: say which step failed, what is done and what is not, and how to go on.
on_error() {
    local rc=$1 cmd=$2 done_list="none"
    trap - ERR
    if [ "$cmd" = '"$@"' ]; then
        cmd=$RUNNING  # the command run() was running
    fi
    if [ "${#STEPS_DONE[@]}" -gt 0 ]; then
        done_list="${STEPS_DONE[*]}"
    fi
    {
        say ""
        say "install.sh: error: step $STEP [$STEP_NAME] failed (exit status $rc) running: $cmd"
        if [ -n "$STEP_HINT" ]; then
            say "install.sh: what to check: $STEP_HINT"
        fi
        say "install.sh: state: steps done before it: $done_list; [$STEP_NAME] and the steps after it were not finished"
        if [ "$MODE" = install ]; then
            if [ "$STEP_NAME" = service ] || [ "$STEP_NAME" = board ]; then
                say "install.sh: the service did not start: journalctl -u $UNIT_NAME -n 30 says why"
            else
                say "install.sh: the service was not restarted by this run: a version installed before keeps running"
            fi
            say "install.sh: fix the cause and run the same command again (sudo systemd/install.sh${BOARD_FLAG}): that is safe, every step checks what is already there"
        else
            say "install.sh: fix the cause and run the same command again (sudo systemd/install.sh${BOARD_FLAG} --uninstall): that is safe"
        fi
    } >&2
    exit "$rc"
}
trap 'on_error $? "$BASH_COMMAND"' ERR
trap '[ -z "$BUILD" ] || rm -rf "$BUILD"' EXIT

# One word as a shell would need it: bare when safe, otherwise in single quotes.
quote() {
    local re="^[A-Za-z0-9_./:=,+@%-]+\$"
    if [[ $1 =~ $re ]]; then
        printf '%s' "$1"
    else
        printf "'%s'" "${1//\'/\'\\\'\'}"
    fi
}

# Print a command (quoted so it can be pasted into a shell), then run it (only print it in a dry run).
run() {
    local arg shown=""
    for arg in "$@"; do
        shown+="$(quote "$arg") "
    done
    say "    \$ ${shown% }"
    RUNNING=${shown% }
    if [ "$DRY_RUN" -eq 0 ]; then
        "$@"
    fi
}

# Print a note about a condition or a decision.
note() { say "    # $*"; }

# Write stdin to a file (mode $2), showing the content in a dry run.
write_file() {
    local dest=$1 mode=$2 content
    content=$(cat)
    say "    \$ write $dest (mode $mode):"
    printf '%s\n' "$content" | sed 's/^/    |   /'
    if [ "$DRY_RUN" -eq 0 ]; then
        printf '%s\n' "$content" > "$dest.tmp.$$"
        chmod "$mode" "$dest.tmp.$$"
        mv -f "$dest.tmp.$$" "$dest"
    fi
}

boot_config_txt() {
    if [ -e "$DESTDIR/boot/firmware/config.txt" ]; then
        echo "$DESTDIR/boot/firmware/config.txt"
    elif [ -e "$DESTDIR/boot/config.txt" ]; then
        echo "$DESTDIR/boot/config.txt"
    fi
}

preflight() {
    local problems=0 arch
    step preflight "checks before changing anything"
    arch=$(uname -m)
    case $arch in
        aarch64|armv7l) note "architecture $arch: supported" ;;
        *) note "architecture $arch: not a Raspberry Pi OS build this script targets (aarch64, armv7l)" ;;
    esac
    if [ -r /etc/os-release ] && grep -q '^VERSION_CODENAME=bookworm' /etc/os-release; then
        note "OS: Bookworm"
    else
        note "OS: not Bookworm; the steps are written for Raspberry Pi OS Bookworm"
    fi
    if [ "$MODE" = install ]; then
        local needed=("$UNIT_SRC" "$UDEV_SRC" "$EXAMPLE")
        if [ "$BOARD" -eq 1 ]; then
            needed=("$BOARD_UNIT_SRC")
        fi
        for f in "${needed[@]}"; do
            if [ -e "$f" ]; then
                note "found $f"
            else
                warn "missing from the checkout: $f"
                problems=$((problems + 1))
            fi
        done
    fi
    if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
        die "run as root (sudo $0${*:+ $*}), or use --dry-run to see the steps"
    fi
    if [ "$DRY_RUN" -eq 0 ] && [ ! -d "$DESTDIR/run/systemd/system" ]; then
        die "systemd is not running on this machine (no /run/systemd/system): the box runs as a systemd service, which needs Raspberry Pi OS (or another systemd system) booted normally, not a container or chroot without systemd; nothing was changed"
    fi
    if [ "$problems" -gt 0 ]; then
        if [ "$DRY_RUN" -eq 1 ]; then
            PROBLEMS=$problems
        else
            die "$problems file(s) missing from the checkout at $SRC; nothing was changed"
        fi
    fi
}

do_packages() {
    step packages "apt packages: ${APT_PACKAGES[*]}" \
        "apt-get needs internet access to the OS's package archives (try: sudo apt-get update)"
    note "python3-lgpio comes from apt, not pip: the venv sees it through --system-site-packages"
    run env DEBIAN_FRONTEND=noninteractive apt-get update
    note "python3-lgpio is only in the Raspberry Pi OS archive (archive.raspberrypi.com):"
    run apt-cache policy python3-lgpio
    # (read whole first: grep -q stopping early would fail apt-cache with SIGPIPE under pipefail)
    if [ "$DRY_RUN" -eq 0 ] && ! grep -q 'Candidate: [^(]' <<< "$(apt-cache policy python3-lgpio 2>/dev/null || true)"; then
        die "python3-lgpio cannot be installed: this is not Raspberry Pi OS (its apt sources lack the Raspberry Pi OS archive, the only place python3-lgpio comes from; gpiozero needs it for the buttons, buzzer and LED). Install Raspberry Pi OS Bookworm on the Pi, or add archive.raspberrypi.com to the apt sources. State: only the package lists were refreshed; nothing else was changed, and running this again is safe"
    fi
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

do_groups() {
    local g
    step groups "groups ${GROUPS_NEEDED[*]} (created only if missing)"
    for g in "${GROUPS_NEEDED[@]}"; do
        if [ "$DRY_RUN" -eq 1 ] || ! getent group "$g" > /dev/null; then
            note "if group $g does not exist:"
            run groupadd --system "$g"
        else
            note "group $g exists"
        fi
    done
}

# A system user $1 (home $2, not made; no login), unless it exists.
system_user() {
    if [ "$DRY_RUN" -eq 1 ] || ! id -u "$1" > /dev/null 2>&1; then
        note "if user $1 does not exist:"
        run useradd --system --user-group --home-dir "$2" --no-create-home \
            --shell /usr/sbin/nologin --comment "$3" "$1"
    else
        note "user $1 exists"
    fi
}

do_user() {
    local joined
    joined=$(IFS=,; echo "${GROUPS_NEEDED[*]}")
    step user "system user $APP in groups $joined"
    system_user "$APP" "$STATE_DIR" "card-assistant daemon"
    run usermod --append --groups "$joined" "$APP"
}

do_venv() {
    step venv "virtual environment $VENV (--system-site-packages, for a box's python3-lgpio from apt)" \
        "python3-venv (and, for a box, python3-lgpio) from the packages step (import lgpio must work with python3)"
    run install -d -m 0755 "$PREFIX"
    if [ "$DRY_RUN" -eq 1 ] || [ ! -x "$VENV/bin/python" ]; then
        note "if $VENV does not exist yet:"
        run python3 -m venv --system-site-packages "$VENV"
    else
        note "$VENV exists: refreshed for the current python3"
        run python3 -m venv --system-site-packages --upgrade "$VENV"
    fi
    if [ "$BOARD" -eq 0 ]; then
        run "$VENV/bin/python" -c "import lgpio"
    fi
}

do_pip() {
    step pip "pip install the package from a copy of $SRC into the venv" \
        "pip downloads the dependencies from PyPI: check the internet connection (ping pypi.org) and the free disk space (df -h /opt /tmp)"
    note "built from a temporary copy, so the checkout is left as it was: pip as root in the checkout"
    note "would leave root-owned build/ and *.egg-info there, and dev.py would then fail as you"
    if [ "$DRY_RUN" -eq 1 ]; then
        BUILD_SRC="${TMPDIR:-/tmp}/card-assistant-build.XXXXXX/src"
    else
        BUILD=$(mktemp -d "${TMPDIR:-/tmp}/card-assistant-build.XXXXXX")
        BUILD_SRC=$BUILD/src
    fi
    say "    \$ copy $SRC to $BUILD_SRC (without .git, .venv, build, *.egg-info, node_modules)"
    if [ "$DRY_RUN" -eq 0 ]; then
        mkdir "$BUILD_SRC"
        tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
            --exclude=node_modules -cf - . | tar -C "$BUILD_SRC" -xf -
    fi
    # the commit goes with the copy (its .git does not), as a module, so pip installs it with the
    # package: `card-assistant --version` names it
    COMMIT_FILE=installed_commit.py
    COMMIT=$(command -v git >/dev/null 2>&1 && git -c safe.directory='*' -C "$SRC" rev-parse --verify -q HEAD 2>/dev/null || true)
    if [ -n "$COMMIT" ]; then
        say "    \$ write $BUILD_SRC/assistant/$COMMIT_FILE (COMMIT = \"$COMMIT\")"
        if [ "$DRY_RUN" -eq 0 ]; then
            printf '"""Written by systemd/install.sh: the commit this copy was installed from."""\nCOMMIT = "%s"\n' \
                "$COMMIT" >"$BUILD_SRC/assistant/$COMMIT_FILE"
        fi
    else
        note "$SRC is not a git checkout (or git is missing): card-assistant --version names the code's digest only"
    fi
    run "$VENV/bin/python" -m pip install --upgrade pip
    run "$VENV/bin/python" -m pip install --upgrade "$BUILD_SRC"
    run "$VENV/bin/card-assistant" --help
    run rm -rf "$BUILD_SRC"
    note "the command on every user's PATH, as the docs name it (card-assistant players, enroll, export, --version)"
    run install -d -m 0755 "$(dirname "$CMD_LINK")"
    run ln -sfn "${VENV#"$DESTDIR"}/bin/card-assistant" "$CMD_LINK"
}

do_udev() {
    step udev "udev rule for the reader ($UDEV_DST, the /dev/card-reader link)"
    run install -m 0644 "$UDEV_SRC" "$UDEV_DST"
    run udevadm control --reload-rules
    run udevadm trigger --action=add --subsystem-match=tty
}

do_modules() {
    step modules "load i2c-dev and cdc_acm at boot ($MODULES_DST)"
    note "the unit allows the device classes i2c and ttyACM; they exist once these modules load"
    printf '# card-assistant: /dev/i2c-* for the OLED, /dev/ttyACM* for the reader\ni2c-dev\ncdc_acm\n' \
        | write_file "$MODULES_DST" 0644
    run modprobe -a i2c-dev cdc_acm
}

do_i2c() {
    local cfg
    step i2c "enable I2C at 400 kHz (dtparam=i2c_arm=on, dtparam=i2c_arm_baudrate=400000)"
    if [ "$DRY_RUN" -eq 1 ] || command -v raspi-config > /dev/null; then
        note "if raspi-config is installed:"
        run raspi-config nonint do_i2c 0
    else
        note "raspi-config not installed: config.txt is edited directly"
    fi
    cfg=$(boot_config_txt || true)
    if [ -z "$cfg" ]; then
        if [ "$DRY_RUN" -eq 1 ]; then
            cfg=$DESTDIR/boot/firmware/config.txt
            note "no config.txt on this machine; on a Pi it is /boot/firmware/config.txt (Bookworm) or /boot/config.txt"
        else
            warn "neither /boot/firmware/config.txt nor /boot/config.txt exists: not a Raspberry Pi? I2C left alone"
            return 0
        fi
    fi
    if [ ! -e "$DESTDIR/dev/i2c-1" ]; then
        REBOOT_NEEDED="I2C is turned on in config.txt, but /dev/i2c-1 (the OLED's bus) exists only after a reboot"
    fi
    note "replace (or add) one marked block at the end of $cfg, under [all] so no model filter applies;"
    note "later lines win, so this baud rate overrides any earlier i2c_arm_baudrate"
    run sed -i "/^# card-assistant-i2c-begin/,/^# card-assistant-i2c-end/d" "$cfg"
    {
        say "$I2C_BEGIN"
        say "[all]"
        say "dtparam=i2c_arm=on"
        say "dtparam=i2c_arm_baudrate=400000"
        say "$I2C_END"
    } | append_file "$cfg"
    note "config.txt is read at boot: reboot once after the first install for 400 kHz"
}

append_file() {
    local dest=$1 content
    content=$(cat)
    say "    \$ append to $dest:"
    printf '%s\n' "$content" | sed 's/^/    |   /'
    if [ "$DRY_RUN" -eq 0 ]; then
        # never glue the block onto a last line that has no newline
        if [ -s "$dest" ] && [ -n "$(tail -c 1 "$dest")" ]; then
            printf '\n' >> "$dest"
        fi
        printf '%s\n' "$content" >> "$dest"
    fi
}

do_config() {
    step config "config $CONF, written once from the example (never overwritten on upgrade)"
    run install -d -m 0755 "$CONF_DIR"
    if [ "$DRY_RUN" -eq 1 ] || [ ! -e "$CONF" ]; then
        note "only if $CONF does not exist yet (an existing one is kept as it is):"
        run install -m 0640 -o root -g "$APP" "$EXAMPLE" "$CONF"
    else
        note "$CONF exists: kept as it is (compare with $EXAMPLE after an upgrade)"
    fi
}

do_service() {
    step service "install, enable and start $APP.service" \
        "systemctl status $APP and its log: journalctl -u $APP -n 30"
    run install -m 0644 "$UNIT_SRC" "$UNIT_DST"
    run install -m 0644 "$WEB_UNIT_SRC" "$WEB_UNIT_DST"
    run systemctl daemon-reload
    run systemctl enable "$APP.service" "$APP-web.service"
    note "restart, so an upgrade runs the new code (starts it if it was not running)"
    run systemctl restart "$APP.service"
    note "the web page ($APP-web.service) serves only when $CONF says [web] enabled = true"
    run systemctl restart "$APP-web.service"
    run systemctl --no-pager --lines=0 status "$APP.service"
}

install_all() {
    preflight "$@"
    do_packages
    do_groups
    do_user
    do_venv
    do_pip
    do_udev
    do_modules
    do_i2c
    do_config
    do_service
    say ""
    say "==> done: $APP installed. Logs: journalctl -u $APP -f"
    if [ -n "$REBOOT_NEEDED" ]; then
        say ""
        say "==> reboot needed: $REBOOT_NEEDED: run  sudo reboot"
        say "    Until then the service runs without the screen: its log says once that the screen is"
        say "    not there, and the table appears as soon as the screen answers."
    fi
}

# The venv serves the box and the board alike: it goes with the last of them ($1: the other's unit).
remove_venv() {
    step venv "remove the venv and $PREFIX, unless $2 still uses it"
    if [ "$DRY_RUN" -eq 0 ] && [ -e "$1" ]; then
        note "kept: $2 runs from it"
    else
        run rm -rf "$PREFIX"
        run rm -f "$CMD_LINK"
    fi
}

uninstall_all() {
    preflight "$@"
    step service "stop, disable and remove $APP.service"
    if [ "$DRY_RUN" -eq 1 ] || [ -e "$UNIT_DST" ]; then
        run systemctl disable --now "$APP.service" "$APP-web.service"
        run systemctl reset-failed "$APP.service" "$APP-web.service" || true
        run rm -f "$UNIT_DST" "$WEB_UNIT_DST"
        run systemctl daemon-reload
    else
        note "$UNIT_DST not installed"
    fi
    step udev "remove the reader's udev rule"
    run rm -f "$UDEV_DST"
    run udevadm control --reload-rules
    step modules "remove $MODULES_DST (modules stay loaded until reboot)"
    run rm -f "$MODULES_DST"
    remove_venv "$BOARD_UNIT_DST" "the club's board ($APP-board.service; install.sh --board --uninstall removes it)"
    step keep "left in place on purpose"
    note "the journal of every match: $DESTDIR$STATE_DIR (delete it yourself to lose the history)"
    note "your settings: $CONF"
    note "the user $APP and the groups (they own the journal), and I2C in config.txt"
    say ""
    say "==> done: $APP uninstalled."
}

# ---- --board: the club's results board and its Mosquitto (docs/club.md) ----------------------

# Write stdin to a file only its owner may read (mode $2, owner $3 as user:group), through a
# temporary file that is private from the start. $4 = show: print the content (an ACL); otherwise
# it holds passwords and is never shown, not even in a dry run.
write_private() {
    local dest=$1 mode=$2 owner=$3 show=${4:-} lines content tmp
    content=$(cat)
    if [ "$show" = show ]; then
        say "    \$ write $dest (mode $mode, owner $owner):"
        printf '%s\n' "$content" | sed 's/^/    |   /'
    else
        lines=$(printf '%s\n' "$content" | grep -c .) || true
        say "    \$ write $dest (mode $mode, owner $owner): $lines line(s), not shown: they hold passwords"
    fi
    if [ "$DRY_RUN" -eq 0 ]; then
        tmp=$(umask 077 && mktemp "${TMPDIR:-/tmp}/card-assistant-secret.XXXXXX")
        printf '%s\n' "$content" > "$tmp"
        install -m "$mode" -o "${owner%%:*}" -g "${owner#*:}" "$tmp" "$dest"
        rm -f "$tmp"
    fi
}

new_password() {
    head -c 18 /dev/urandom | base64 | tr '+/' '-_'
}

# `NAME=value` from board.env, if it is there
env_value() {
    [ -r "$BOARD_ENV" ] || return 0
    sed -n "s/^$1=//p" "$BOARD_ENV" | tail -n 1
}

do_board_packages() {
    step packages "apt packages: mosquitto python3-venv" \
        "apt-get needs internet access to the OS's package archives (try: sudo apt-get update)"
    run env DEBIAN_FRONTEND=noninteractive apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mosquitto python3-venv
}

do_board_user() {
    step user "system user $APP-board (the board's service; no login, no devices)"
    system_user "$APP-board" "$BOARD_STATE" "card-assistant club board"
}

do_accounts() {
    local name pw known=() lines=() t
    step accounts "broker accounts: board and the tables, each with its own password ($CLUB_PW)"
    run install -d -m 0755 "$CONF_DIR"
    declare -A have=()
    if [ -r "$CLUB_PW" ]; then
        note "$CLUB_PW exists: its passwords are kept (the boxes have them); new tables are added"
        while read -r name pw; do
            if [ -n "$name" ] && [ -n "$pw" ] && [ -z "${have[$name]:-}" ]; then
                have[$name]=$pw
                known+=("$name")
            fi
        done < "$CLUB_PW"
    fi
    for name in board "${TABLE_LIST[@]}"; do
        if [ -z "${have[$name]:-}" ]; then
            if [ "$DRY_RUN" -eq 1 ]; then
                have[$name]=NEW
            else
                have[$name]=$(new_password)
            fi
            known+=("$name")
            note "account $name: a new random password"
        fi
    done
    ACCOUNTS=()
    for name in "${known[@]}"; do
        lines+=("$name ${have[$name]}")
        if [ "$name" != board ]; then
            ACCOUNTS+=("$name")
        fi
    done
    printf '%s\n' "${lines[@]}" | write_private "$CLUB_PW" 0600 root:root
    printf '%s\n' "${have[board]}" | write_private "$BOARD_PW" 0640 "root:$APP-board"
    if [ "${#ACCOUNTS[@]}" -eq 0 ]; then
        warn "no table has an account yet: run again with --tables t1,t2,... (or --tables 10); until then no box can publish"
    fi
    for t in "${ACCOUNTS[@]}"; do
        HASH_INPUT+="$t:${have[$t]}"$'\n'
    done
    HASH_INPUT+="board:${have[board]}"$'\n'
}

do_mosquitto() {
    local club=$1 hashed t tls=0
    if [ -e "$MQ_CERT" ] && [ -e "$MQ_KEY" ]; then
        tls=1
    fi
    TLS_ON=$tls
    step mosquitto "Mosquitto for the club: listeners, passwords, an ACL ($MQ_CONF)" \
        "journalctl -u mosquitto -n 30 and /var/log/mosquitto/mosquitto.log say why it did not start"
    run install -d -m 0755 "$MQ_DIR/conf.d"
    note "the password file holds hashes (mosquitto_passwd -U); only the mosquitto user reads it"
    if [ "$tls" -eq 1 ]; then
        note "TLS: $MQ_CERT and its key found; the key must be readable by the mosquitto user only"
        run install -m 0600 -o mosquitto -g mosquitto "$MQ_KEY" "$MQ_KEY.new"
        run mv -f "$MQ_KEY.new" "$MQ_KEY"
    else
        note "no $MQ_CERT: the boxes send their passwords in clear over the Wi-Fi (TLS: docs/club.md)"
    fi
    if [ "$DRY_RUN" -eq 0 ]; then
        hashed=$(umask 077 && mktemp -d)
        printf '%s' "$HASH_INPUT" > "$hashed/passwd"
        mosquitto_passwd -U "$hashed/passwd"
        write_private "$MQ_PASSWD" 0600 mosquitto:mosquitto < "$hashed/passwd"
        rm -rf "$hashed"
    else
        printf '%s' "$HASH_INPUT" | write_private "$MQ_PASSWD" 0600 mosquitto:mosquitto
    fi
    note "a table writes only under its own name; the board only reads"
    {
        say "# card-assistant club $club (install.sh --board): each table writes only its own topics"
        for t in "${ACCOUNTS[@]}"; do
            say "user $t"
            say "topic write club/$club/$t/#"
            say ""
        done
        say "user board"
        say "topic read club/$club/#"
    } | write_private "$MQ_ACL" 0600 mosquitto:mosquitto show
    {
        say "# card-assistant club (install.sh --board; docs/club.md). Written again by every run."
        say "# TLS for the boxes on a shared Wi-Fi: docs/club.md, section TLS."
        say "per_listener_settings false"
        if [ "$tls" -eq 1 ]; then
            say "# TLS for the boxes ($MQ_CERT found); plain MQTT only for the board, on this Pi"
            say "listener 1883 127.0.0.1"
            say "listener 8883"
            say "certfile ${MQ_CERT#"$DESTDIR"}"
            say "keyfile ${MQ_KEY#"$DESTDIR"}"
        else
            say "# no certificate in ${MQ_CERT#"$DESTDIR"}: plain MQTT for the boxes (TLS: docs/club.md)"
            say "listener 1883"
        fi
        say "allow_anonymous false"
        say "password_file ${MQ_PASSWD#"$DESTDIR"}"
        say "acl_file ${MQ_ACL#"$DESTDIR"}"
        say "# the board's session keeps what arrives while it restarts (the default, 1000, is minutes)"
        say "max_queued_messages 100000"
        say "# no message over the board's largest (a match's record, 1 MiB): dropped, its QoS flow"
        say "# completed; a packet over 4 MiB is no box's: its client is disconnected (docs/club.md)"
        say "message_size_limit 1048576"
        say "max_packet_size 4194304"
    } | write_file "$MQ_CONF" 0644
    run systemctl enable mosquitto.service
    run systemctl restart mosquitto.service
}

do_board_service() {
    local club=$1 port=$2 broker options
    step board "the board: $BOARD_ENV and $APP-board.service" \
        "systemctl status $APP-board and its log: journalctl -u $APP-board -n 30"
    broker=$(env_value BOARD_BROKER)
    options=$(env_value BOARD_OPTIONS)
    {
        say "# card-assistant-board.service (install.sh --board writes it; your BOARD_BROKER and"
        say "# BOARD_OPTIONS are kept). The board's broker password is in board-password, not here."
        say "BOARD_BROKER=${broker:-mqtt://board@127.0.0.1:1883}"
        say "BOARD_CLUB=$club"
        say "BOARD_PORT=$port"
        say "# more options, e.g. with a broker on another machine over TLS: --cafile /etc/card-assistant/club-ca.crt"
        say "BOARD_OPTIONS=$options"
    } | write_file "$BOARD_ENV" 0644
    run install -m 0644 "$BOARD_UNIT_SRC" "$BOARD_UNIT_DST"
    run systemctl daemon-reload
    run systemctl enable "$APP-board.service"
    note "restart, so an upgrade runs the new code (starts it if it was not running)"
    run systemctl restart "$APP-board.service"
    run systemctl --no-pager --lines=0 status "$APP-board.service"
}

install_board() {
    local club port t host
    preflight "$@"
    club=${CLUB:-$(env_value BOARD_CLUB)}
    club=${club:-club}
    port=${BOARD_PORT:-$(env_value BOARD_PORT)}
    port=${port:-8030}
    HASH_INPUT=""
    TLS_ON=0
    do_board_packages
    do_venv
    do_pip
    do_board_user
    do_accounts
    do_mosquitto "$club"
    do_board_service "$club" "$port"
    host=$(hostname 2>/dev/null || echo BOARD-PI)
    say ""
    say "==> done: the club's board is installed: http://$host.local:$port/ (journalctl -u $APP-board -f)"
    say ""
    say "Each box joins with this in its /etc/card-assistant/config.toml (then: sudo systemctl restart $APP):"
    say "    [club]"
    if [ "$TLS_ON" -eq 1 ]; then
        say "    broker = \"mqtts://$host.local:8883\""
        say "    cafile = \"/etc/card-assistant/club-ca.crt\"   # the CA that signed ${MQ_CERT#"$DESTDIR"}"
    else
        say "    broker = \"mqtt://$host.local:1883\""
    fi
    say "    club = \"$club\""
    say "    table = \"TABLE\""
    say "    password = \"TABLE's password\""
    say "Tables: ${ACCOUNTS[*]:-none yet}. Their passwords: sudo cat $CLUB_PW (root only)."
    if [ "$TLS_ON" -eq 0 ]; then
        say "Over a Wi-Fi others share, use TLS: docs/club.md, section TLS."
    fi
}

uninstall_board() {
    preflight "$@"
    step board "stop, disable and remove $APP-board.service"
    if [ "$DRY_RUN" -eq 1 ] || [ -e "$BOARD_UNIT_DST" ]; then
        run systemctl disable --now "$APP-board.service"
        run systemctl reset-failed "$APP-board.service" || true
        run rm -f "$BOARD_UNIT_DST"
        run systemctl daemon-reload
    else
        note "$BOARD_UNIT_DST not installed"
    fi
    step mosquitto "remove the club's broker settings; Mosquitto goes back to its defaults"
    run rm -f "$MQ_CONF" "$MQ_PASSWD" "$MQ_ACL"
    if [ "$DRY_RUN" -eq 1 ] || [ -e "$DESTDIR/lib/systemd/system/mosquitto.service" ] \
            || [ -e "$DESTDIR/usr/lib/systemd/system/mosquitto.service" ]; then
        run systemctl try-restart mosquitto.service
    fi
    remove_venv "$UNIT_DST" "the box ($APP.service)"
    step keep "left in place on purpose"
    note "every event the board stored: $DESTDIR$BOARD_STATE (delete it yourself to lose the evening)"
    note "the accounts, so the boxes keep their passwords on a reinstall: $CLUB_PW, $BOARD_PW"
    note "(root only; delete them yourself, with $BOARD_ENV, to start again), and the user $APP-board"
    note "the mosquitto package (sudo apt-get remove mosquitto)"
    say ""
    say "==> done: $APP-board uninstalled."
}

PROBLEMS=0
BOARD_FLAG=""
UNIT_NAME=$APP
if [ "$BOARD" -eq 1 ]; then
    BOARD_FLAG=" --board"
    UNIT_NAME=$APP-board
fi
if [ "$DRY_RUN" -eq 1 ]; then
    say "install.sh --dry-run ($MODE): printing every step; nothing is changed"
    say "checkout: $SRC"
fi
if [ "$BOARD" -eq 1 ] && [ "$MODE" = install ]; then
    install_board "$@"
elif [ "$BOARD" -eq 1 ]; then
    uninstall_board "$@"
elif [ "$MODE" = install ]; then
    install_all "$@"
else
    uninstall_all "$@"
fi
if [ "$PROBLEMS" -gt 0 ]; then
    say ""
    say "dry run: $PROBLEMS file(s) missing from the checkout would stop the real install (see the warnings)"
    exit 1
fi
