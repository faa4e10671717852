#!/usr/bin/env bash
# No function that glibc gained after 2.27 (the Jetson Nano's Ubuntu 18.04)
# may be called.  Binaries built against a newer glibc do carry newer symbol
# versions of old functions (stat@GLIBC_2.33, pthread_create@GLIBC_2.34 ...):
# those are listed and accepted, since on the Nano itself the build links the
# old versions.  A function that did not exist in 2.27 at all fails.
#   scripts/glibc-symbols.sh [OBJDUMP] BINARY...
set -uo pipefail
objdump=objdump
if [ $# -gt 0 ] && [[ "$1" == *objdump ]]; then objdump=$1; shift; fi
# functions first in glibc 2.28 .. 2.38
new="fcntl64 statx renameat2 thrd_create thrd_current thrd_detach thrd_equal thrd_exit thrd_join
thrd_sleep thrd_yield mtx_init mtx_lock mtx_timedlock mtx_trylock mtx_unlock mtx_destroy call_once
cnd_broadcast cnd_destroy cnd_init cnd_signal cnd_timedwait cnd_wait tss_create tss_delete tss_get
tss_set posix_spawn_file_actions_addchdir_np posix_spawn_file_actions_addfchdir_np getcpu gettid
tgkill twalk_r pthread_cond_clockwait pthread_mutex_clocklock pthread_rwlock_clockrdlock
pthread_rwlock_clockwrlock sem_clockwait pthread_attr_setsigmask_np pthread_attr_getsigmask_np
sigabbrev_np sigdescr_np strerrorname_np strerrordesc_np mallinfo2 closefrom close_range execveat
posix_spawn_file_actions_addclosefrom_np _Fork timespec_getres epoll_pwait2 _dl_find_object
arc4random arc4random_buf arc4random_uniform pidfd_open pidfd_getfd pidfd_send_signal
process_madvise process_mrelease fsopen fsmount fsconfig fspick move_mount open_tree mount_setattr
strlcpy strlcat wcslcpy wcslcat"
bad=0 bumped=""
for bin in "$@"; do
  while read -r name version; do
    major=${version#GLIBC_}
    if [ "$(printf '%s\n2.27\n' "$major" | sort -V | tail -1)" != "2.27" ]; then
      if printf '%s\n' $new | grep -x "$name" > /dev/null; then
        echo "glibc-symbols: $bin calls $name ($version), which glibc 2.27 does not have"
        bad=$((bad + 1))
      else
        bumped="$bumped $name@$version"
      fi
    fi
  done < <("$objdump" -T "$bin" | awk '/GLIBC_2\./ && /\*UND\*/ { v = $0; sub(/.*\(?GLIBC_/, "GLIBC_", v); sub(/[ )].*/, "", v); print $NF, v }')
done
echo "glibc-symbols: newer versions of functions 2.27 has (expected when built on a newer system):$(printf '%s\n' $bumped | sort -u | tr '\n' ' ')"
echo "glibc-symbols: $bad function(s) that glibc 2.27 does not have"
[ "$bad" -eq 0 ]
