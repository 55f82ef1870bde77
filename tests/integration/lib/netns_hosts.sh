# Load hosts for `bmk cluster run` on this machine (sourced by
# test_cluster.sh and bench/cluster_vs_single.sh): network namespaces,
# each with its own address on a private bridge and Debian's
# openssh-server with a key generated here. Needs root, `ip`, sshd and
# ssh. The sandbox servers are reached from the namespaces over their Unix
# sockets (a network namespace shares the file system).
#
#   NH_DIR=DIR NH_ID=ID nh_setup N   creates hosts lg1..lgN (0, or 1 with a
#                                     message on stderr); sets NH_HOSTS
#                                     (the names), NH_NS (the namespaces),
#                                     NH_LAUNCHER (a --launcher template:
#                                     the test's ssh configuration, one
#                                     master connection per host kept 60 s)
#                                     and NH_SSH (ssh with that
#                                     configuration). Also lgbad: lg1's
#                                     address with a key its sshd refuses.
#   nh_cleanup                        stops the sshds, ends the master
#                                     connections, removes namespaces and
#                                     bridge.
# NH_DIR holds the keys, sshd_config, ssh_config and pid files; NH_ID
# (e.g. $$) makes the names and the /24 unique to this run.

nh_setup() {
  local n=$1 i try
  NH_BR="bmkbr$NH_ID"
  NH_NS=() NH_HOSTS=()
  for i in $(seq 0 $((n - 1))); do
    NH_NS+=("bmkc${NH_ID}$(printf "\\x$(printf %x $((97 + i)))")")
    NH_HOSTS+=("lg$((i + 1))")
  done
  # a /24 of our own that no route of this machine covers but the default
  for try in $(seq 0 40); do
    NH_PFX="10.$(((NH_ID + try) % 200 + 20)).$((NH_ID / 200 % 250))"
    ip -4 route show to match "$NH_PFX.1" | grep -qv '^default' || break
  done
  nh_net "$n" && nh_ssh "$n" || { echo "netns_hosts: could not set up $n hosts" >&2; return 1; }
  NH_SSH="ssh -F $NH_DIR/ssh_config -o BatchMode=yes"
  NH_LAUNCHER="ssh -F $NH_DIR/ssh_config -o BatchMode=yes -o ControlMaster=auto -o ControlPath=$NH_DIR/cm-%C -o ControlPersist=60 {host}"
}

nh_net() {
  ip link add "$NH_BR" type bridge || return 1
  ip addr add "$NH_PFX.1/24" dev "$NH_BR" && ip link set "$NH_BR" up || return 1
  local i
  for i in $(seq 0 $(($1 - 1))); do
    local ns=${NH_NS[$i]} v="bmkv${NH_ID}$i" p="bmkp${NH_ID}$i"
    ip netns add "$ns" || return 1
    ip link add "$v" type veth peer name "$p" || return 1
    ip link set "$v" master "$NH_BR" && ip link set "$v" up || return 1
    ip link set "$p" netns "$ns" || return 1
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip addr add "$NH_PFX.$((11 + i))/24" dev "$p" || return 1
    ip netns exec "$ns" ip link set "$p" up || return 1
  done
}

nh_ssh() {
  local d=$NH_DIR
  ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey" || return 1
  ssh-keygen -q -t ed25519 -N '' -f "$d/client" || return 1
  ssh-keygen -q -t ed25519 -N '' -f "$d/stranger" || return 1
  mkdir -p /run/sshd
  cat > "$d/sshd_config" <<EOF
Port 22
HostKey $d/hostkey
AuthorizedKeysFile $d/client.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ERROR
# the sanitizer pass's settings reach the remote bmk (run.sh reads its reports)
AcceptEnv ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS
EOF
  : > "$d/ssh_config"
  local i
  for i in $(seq 0 $(($1 - 1))); do
    printf 'Host %s\n  HostName %s\n' "${NH_HOSTS[$i]}" "$NH_PFX.$((11 + i))" >> "$d/ssh_config"
    ip netns exec "${NH_NS[$i]}" /usr/sbin/sshd -f "$d/sshd_config" \
      -o ListenAddress="$NH_PFX.$((11 + i))" -o PidFile="$d/sshd-$i.pid" || return 1
  done
  # lg1's address with a key its sshd does not know (another user: no
  # shared master connection with lg1)
  printf 'Host lgbad\n  HostName %s\n  User nobody\n  IdentityFile %s\n' "$NH_PFX.11" \
    "$d/stranger" >> "$d/ssh_config"
  cat >> "$d/ssh_config" <<EOF
Host *
  User root
  IdentityFile $d/client
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 5
  SendEnv ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS
EOF
  # every sshd listens (generous: a loaded machine)
  local ns t
  for ns in "${NH_NS[@]}"; do
    for t in $(seq 100); do
      [ -n "$(ip netns exec "$ns" ss -ltnH 'sport = :22')" ] && break
      sleep 0.1
    done
  done
}

nh_cleanup() {  # (each step may find nothing to do: never fails, also under set -e)
  local f ns
  for f in "$NH_DIR"/sshd-*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  # (ssh renames a master connection "ssh: DIR/cm-... [mux]")
  pkill -f -- "$NH_DIR/cm-" 2>/dev/null || true
  for ns in "${NH_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ -n "${NH_BR:-}" ]; then ip link del "$NH_BR" 2>/dev/null || true; fi
  return 0
}
