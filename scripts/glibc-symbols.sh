#!/usr/bin/env bash
# No function that glibc gained after LEVEL (2.27, the Jetson Nano's Ubuntu
# 18.04, unless JF_GLIBC_LEVEL says another: 2.35 for JetPack 6's Ubuntu
# 22.04) may be called.  Binaries built against a newer glibc do carry newer
# symbol versions of old functions (stat@GLIBC_2.33, pthread_create@GLIBC_2.34
# ...): those are listed and accepted, since on the board itself the build
# links the old versions.  A function that did not exist in LEVEL fails.
#   [JF_GLIBC_LEVEL=2.35] scripts/glibc-symbols.sh [OBJDUMP] BINARY...
set -uo pipefail
level=${JF_GLIBC_LEVEL:-2.27}
objdump=objdump
if [ $# -gt 0 ] && [[ "$1" == *objdump ]]; then objdump=$1; shift; fi
# functions first in glibc 2.28 .. 2.38, each with the release it came in
new="2.28:fcntl64 2.28:statx 2.28:renameat2 2.28:thrd_create 2.28:thrd_current 2.28:thrd_detach
2.28:thrd_equal 2.28:thrd_exit 2.28:thrd_join 2.28:thrd_sleep 2.28:thrd_yield 2.28:mtx_init 2.28:mtx_lock
2.28:mtx_timedlock 2.28:mtx_trylock 2.28:mtx_unlock 2.28:mtx_destroy 2.28:call_once 2.28:cnd_broadcast
2.28:cnd_destroy 2.28:cnd_init 2.28:cnd_signal 2.28:cnd_timedwait 2.28:cnd_wait 2.28:tss_create
2.28:tss_delete 2.28:tss_get 2.28:tss_set 2.29:posix_spawn_file_actions_addchdir_np
2.29:posix_spawn_file_actions_addfchdir_np 2.29:getcpu 2.30:gettid 2.30:tgkill 2.30:twalk_r
2.30:pthread_cond_clockwait 2.30:pthread_mutex_clocklock 2.30:pthread_rwlock_clockrdlock
2.30:pthread_rwlock_clockwrlock 2.30:sem_clockwait 2.32:pthread_attr_setsigmask_np
2.32:pthread_attr_getsigmask_np 2.32:sigabbrev_np 2.32:sigdescr_np 2.32:strerrorname_np
2.32:strerrordesc_np 2.33:mallinfo2 2.34:closefrom 2.34:close_range 2.34:execveat
2.34:posix_spawn_file_actions_addclosefrom_np 2.34:_Fork 2.34:timespec_getres 2.35:epoll_pwait2
2.35:_dl_find_object 2.36:arc4random 2.36:arc4random_buf 2.36:arc4random_uniform 2.36:pidfd_open
2.36:pidfd_getfd 2.36:pidfd_send_signal 2.36:process_madvise 2.36:process_mrelease 2.36:fsopen
2.36:fsmount 2.36:fsconfig 2.36:fspick 2.36:move_mount 2.36:open_tree 2.36:mount_setattr
2.38:strlcpy 2.38:strlcat 2.38:wcslcpy 2.38:wcslcat"
newer() { [ "$(printf '%s\n%s\n' "$1" "$level" | sort -V | tail -1)" != "$level" ]; }
bad=0 bumped=""
for bin in "$@"; do
  while read -r name version; do
    major=${version#GLIBC_}
    if newer "$major"; then
      since=$(printf '%s\n' $new | awk -F: -v n="$name" '$2 == n { print $1 }')
      if [ -n "$since" ] && newer "$since"; then
        echo "glibc-symbols: $bin calls $name ($version), which glibc $level does not have"
        bad=$((bad + 1))
      else
        bumped="$bumped $name@$version"
      fi
    fi
  done < <("$objdump" -T "$bin" | awk '/GLIBC_2\./ && /\*UND\*/ { v = $0; sub(/.*\(?GLIBC_/, "GLIBC_", v); sub(/[ )].*/, "", v); print $NF, v }')
done
echo "glibc-symbols: newer versions of functions $level has (expected when built on a newer system):$(printf '%s\n' $bumped | sort -u | tr '\n' ' ')"
echo "glibc-symbols: $bad function(s) that glibc $level does not have"
[ "$bad" -eq 0 ]
