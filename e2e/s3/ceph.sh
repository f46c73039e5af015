#!/usr/bin/env bash
# A throwaway single-node Ceph cluster with the RADOS Gateway (a real S3 engine) for `npm run test:scale`:
# one monitor, one OSD on the in-memory object store, one radosgw; no manager, no auth between daemons.
# Debian packages: apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw
#
#   e2e/s3/ceph.sh start   prints the S3 endpoint; the daemons' pids go to $ATELIER_CEPH_DIR/pids
#   e2e/s3/ceph.sh stop    stops them by pid (TERM, KILL after 20 s)
#
# Environment: ATELIER_CEPH_DIR (state, default /tmp/atelier-ceph), ATELIER_CEPH_S3_PORT (4780),
# ATELIER_CEPH_MON_PORT (4700; daemons take 4710-4769), S3_ACCESS_KEY / S3_SECRET_KEY (the S3 user).
# Binds only 127.0.0.1. Objects live in the OSD's memory (8 GiB cap): meant for tests, not data.
set -Eeuo pipefail
DIR=${ATELIER_CEPH_DIR:-/tmp/atelier-ceph}
S3_PORT=${ATELIER_CEPH_S3_PORT:-4780}
MON_PORT=${ATELIER_CEPH_MON_PORT:-4700}
ACCESS=${S3_ACCESS_KEY:-ATELIERTESTACCESS001}
SECRET=${S3_SECRET_KEY:-atelier-test-secret-key-not-for-production}
export CEPH_CONF=$DIR/ceph.conf   # the ceph and radosgw-admin CLIs talk to this cluster, never /etc/ceph

# A pid is live when /proc says so and it is not a zombie (a dead daemon stays one until reaped).
live() { local s; s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1; [ -n "$s" ] && [ "$s" != Z ]; }
live_file() { [ -f "$1" ] && live "$(cat "$1")"; }
# The gateway answers an anonymous GET / with 200 (ListAllMyBuckets of the anonymous user).
s3_ready() {
  ( exec 3<>"/dev/tcp/127.0.0.1/$S3_PORT" || exit 1
    printf 'GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    IFS= read -r -t 3 line <&3 || exit 1
    [[ $line == HTTP/1.?" 200"* ]] ) 2>/dev/null
}
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() { local tries=$1; shift; for _ in $(seq 1 "$tries"); do "$@" && return 0; sleep 0.2; done; return 1; }

stop() {
  for d in rgw osd mon; do
    local f=$DIR/pids/$d.pid
    if live_file "$f"; then
      local pid; pid=$(cat "$f")
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 200); do live "$pid" || break; sleep 0.1; done
      if live "$pid"; then echo "ceph.sh: $d ($pid) ignored TERM; KILL" >&2; kill -KILL "$pid" 2>/dev/null || true; fi
    fi
    rm -f "$f"
  done
}

osd_up() { ceph osd dump 2>/dev/null | grep -q '^osd.0 up'; }
mon_up() { ceph --connect-timeout 2 mon stat >/dev/null 2>&1; }

start() {
  trap 'echo "ceph.sh: start failed (line $LINENO); logs in $DIR/log" >&2; stop' ERR
  if live_file "$DIR/pids/mon.pid" && live_file "$DIR/pids/osd.pid" && live_file "$DIR/pids/rgw.pid" && s3_ready; then
    echo "http://127.0.0.1:$S3_PORT"; return 0
  fi
  stop
  for p in "$MON_PORT" "$S3_PORT"; do
    if in_use "$p"; then echo "ceph.sh: port $p on 127.0.0.1 is taken by another program" >&2; return 1; fi
  done
  rm -rf "$DIR"; mkdir -p "$DIR"/{pids,log,run,mon.a,osd.0,rgw}
  local fsid; fsid=$(cat /proc/sys/kernel/random/uuid)
  # Why the less usual settings:
  # - auth none everywhere, but "ms mon client mode = crc secure": radosgw hangs at start otherwise;
  # - one OSD: pool size 1 and one placement group per pool (the defaults exceed the per-OSD PG limit);
  # - a short paxos interval: each of the ~8 pools radosgw creates would otherwise take ~2 s;
  # - memstore: no disk, fastest start; objects are lost on stop, which is what tests want.
  cat > "$CEPH_CONF" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$MON_PORT
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv4 = true
ms bind ipv6 = false
ms bind msgr1 = false
ms bind port min = 4710
ms bind port max = 4769
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms mon client mode = crc secure
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 1
osd pool default pgp num = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 0
paxos propose interval = 0.1
paxos min wait = 0.01
run dir = $DIR/run
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
crash dir = $DIR/crash
keyring = $DIR/keyring
mon data = $DIR/\$name
osd data = $DIR/\$name
[osd]
osd objectstore = memstore
memstore device bytes = 8589934592
osd op num shards = 2
osd op num threads per shard = 1
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$S3_PORT
rgw data = $DIR/rgw
rgw thread pool size = 64
rgw enable usage log = false
EOF
  : > "$DIR/keyring"
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$MON_PORT]" "$DIR/monmap" > /dev/null
  ceph-mon --mkfs -i a --monmap "$DIR/monmap" > "$DIR/log/mon-mkfs.out" 2>&1
  nohup ceph-mon -f -i a > "$DIR/log/mon.out" 2>&1 &
  echo $! > "$DIR/pids/mon.pid"
  wait_for 100 mon_up || { echo "ceph.sh: monitor did not answer" >&2; false; }

  local uuid id; uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$(ceph --connect-timeout 10 osd new "$uuid")
  [ "$id" = 0 ] || { echo "ceph.sh: expected osd id 0, got $id" >&2; false; }
  ceph-osd -i 0 --mkfs --osd-uuid "$uuid" > "$DIR/log/osd-mkfs.out" 2>&1
  nohup ceph-osd -f -i 0 > "$DIR/log/osd.out" 2>&1 &
  echo $! > "$DIR/pids/osd.pid"
  wait_for 300 osd_up || { echo "ceph.sh: OSD did not come up" >&2; tail -20 "$DIR/log/osd.0.log" >&2; false; }

  radosgw-admin user create --uid=atelier --display-name=atelier --access-key="$ACCESS" --secret-key="$SECRET" > "$DIR/log/user.json" 2> "$DIR/log/user.err"
  nohup radosgw -f -n client.rgw > "$DIR/log/rgw.out" 2>&1 &
  echo $! > "$DIR/pids/rgw.pid"
  wait_for 300 s3_ready || { echo "ceph.sh: radosgw did not come up" >&2; tail -30 "$DIR/log/client.rgw.log" >&2; false; }
  trap - ERR
  echo "http://127.0.0.1:$S3_PORT"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
