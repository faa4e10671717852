#!/usr/bin/env bash
# The Debian package as an Ubuntu user gets it: in an Ubuntu root made with
# debootstrap (jammy: 22.04, JetPack 6's; bionic: 18.04, JetPack 4.6's),
# install the build dependencies from that release, build the CPU-only
# library and tool with its compiler and CMake, make the package with
# cpack (its Depends worked out from that release's libraries), then
# install it with apt into a second, untouched root of the same release and
# use it there: denoise a JPEG into TIFF, then through lossless WebP to PNG
# with nothing changed, jetfilter info.
#   scripts/ubuntu-check.sh [jammy|bionic]      (as root; several minutes)
# The roots are kept in ~/.cache/jetfilter-ci/ubuntu-RELEASE.tar between
# runs.  Needs debootstrap and Ubuntu's archive key (fetched from the
# archive's ubuntu-keyring package when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
release=${1:-jammy}
[ "$(id -u)" -eq 0 ] || { echo "ubuntu-check: needs root (debootstrap, chroot)"; exit 1; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/jetfilter-ci
mkdir -p "$cache"
command -v debootstrap > /dev/null || apt-get install -y -qq debootstrap > /dev/null
keyring=$cache/ubuntu-archive-keyring.gpg
if [ ! -s "$keyring" ]; then
  tmp=$(mktemp -d)
  curl -sfo "$tmp/k.deb" http://archive.ubuntu.com/ubuntu/pool/main/u/ubuntu-keyring/ubuntu-keyring_2021.03.26_all.deb
  dpkg-deb -x "$tmp/k.deb" "$tmp/x"
  cp "$tmp/x/usr/share/keyrings/ubuntu-archive-keyring.gpg" "$keyring"
  rm -rf "$tmp"
fi
base=$cache/ubuntu-$release.tar
if [ ! -s "$base" ]; then
  root=$(mktemp -d /var/tmp/ubuntu-XXXXXX)
  debootstrap --variant=minbase --keyring="$keyring" "$release" "$root" http://archive.ubuntu.com/ubuntu \
    > "$cache/debootstrap-$release.log" 2>&1 || { tail -20 "$cache/debootstrap-$release.log"; exit 1; }
  echo "deb http://archive.ubuntu.com/ubuntu $release main universe" > "$root/etc/apt/sources.list"
  echo "deb http://archive.ubuntu.com/ubuntu $release-updates main universe" >> "$root/etc/apt/sources.list"
  tar -C "$root" -cf "$base" .
  rm -rf "$root"
fi
work=$(mktemp -d /var/tmp/ubuntu-check-XXXXXX)
cleanup() {
  for r in "$work/build" "$work/user"; do
    umount "$r/proc" "$r/src" 2> /dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
in_root() { # root, command
  chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive HOME=/root \
    bash -euo pipefail -c "$2"
}
for r in build user; do
  mkdir -p "$work/$r"
  tar -C "$work/$r" -xf "$base"
  cp /etc/resolv.conf "$work/$r/etc/resolv.conf"
  mkdir -p "$work/$r/proc" "$work/$r/src"
  mount -t proc proc "$work/$r/proc"
done
mount --bind -o ro "$src" "$work/build/src" 2> /dev/null || mount --bind "$src" "$work/build/src"
echo "ubuntu-check: $release: build dependencies"
deflate=libdeflate-dev # PNG's image data; 18.04 has none, and the build does without
[ "$release" = bionic ] && deflate=
in_root "$work/build" "apt-get update -qq && apt-get install -y -qq --no-install-recommends build-essential \
  cmake pkg-config libjpeg-dev libpng-dev zlib1g-dev $deflate libtiff-dev libwebp-dev libjansson-dev file dpkg-dev \
  > /tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }"
echo "ubuntu-check: $release: build ($(in_root "$work/build" 'gcc --version | head -1; cmake --version | head -1' | tr '\n' ' '))"
in_root "$work/build" "mkdir -p /b && cd /b && cmake /src -DCMAKE_BUILD_TYPE=Release -DJETFILTER_CUDA=OFF \
  -DJETFILTER_TESTS=OFF -DJETFILTER_GSTREAMER=OFF -DCMAKE_INSTALL_PREFIX=/usr > cmake.log 2>&1 &&
  make -j\$(nproc) > make.log 2>&1 && cpack -G DEB > cpack.log 2>&1 ||
  { tail -n 30 cmake.log make.log cpack.log; exit 1; }" || { echo "ubuntu-check: $release: the build failed"; exit 1; }
deb=$(ls "$work/build/b"/jetfilter_*.deb)
version=$(sed -n 's/^#define JF_VERSION_STRING "\(.*\)"$/\1/p' include/jetfilter/base.h)
case $(basename "$deb") in
  jetfilter_"$version"_*) ;;
  *) echo "ubuntu-check: $release: the package is $(basename "$deb"), not version $version"; exit 1 ;;
esac
echo "ubuntu-check: $release: $(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
cp "$deb" "$work/user/tmp/"
cp "$src/samples/images/rocket.jpg" "$work/user/tmp/in.jpg"
in_root "$work/user" "apt-get update -qq && apt-get install -y -qq /tmp/$(basename "$deb") > /tmp/apt.log 2>&1 ||
  { tail -20 /tmp/apt.log; exit 1; }
  cd /tmp && jetfilter -V && jetfilter denoise in.jpg -o a.tif -k 5 &&
  jetfilter denoise a.tif -o b.webp --webp lossless -k 1 && jetfilter denoise b.webp -o c.png -k 1 &&
  jetfilter metrics a.tif c.png | grep 'psnr_db *inf' && jetfilter info | grep formats"
echo "ubuntu-check: $release: the package installed in a fresh $release root and used there"
