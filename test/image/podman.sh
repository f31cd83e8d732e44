# podman as it works on these machines (root, no systemd cgroups): cgroupfs, runc, containers.conf
# beside this file, and the kernel's overlay storage where it has one (each layer shared, not copied;
# vfs copies every layer whole: a build took 5-10 minutes instead of about one). The images of each
# storage driver live in a folder of their own, apart from podman's default store.
# Sourced by the image scripts.
podman_conf="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf"
if grep -qw overlay /proc/filesystems 2>/dev/null || modprobe overlay 2>/dev/null; then podman_driver=overlay; else podman_driver=vfs; fi
podman_cmd() {
  CONTAINERS_CONF="$podman_conf" podman --storage-driver "$podman_driver" \
    --root "/var/lib/containers/events-mirror-$podman_driver" --runroot "/run/containers/events-mirror-$podman_driver" \
    --cgroup-manager cgroupfs --runtime runc "$@"
}
