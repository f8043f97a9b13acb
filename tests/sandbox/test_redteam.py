"""Red team: >= 60 escape attempts, each run for real inside bwrap. The bar: no canary
(private reference, harness env var, harness file, other run, host home, host network)
ever shows up in stdout/stderr or in a workspace file."""
from __future__ import annotations

import base64
import subprocess
import time
import uuid

import pytest

from .conftest import needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.bwrap]


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


C_READ = r'''
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0) { perror(argv[i]); continue; }
    char buf[4096]; ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n > 0) { buf[n] = 0; printf("%s", buf); }
    close(fd);
  }
  return 0;
}'''

C_ENV = r'''
#include <stdio.h>
extern char **environ;
int main(void) { for (char **e = environ; *e; e++) puts(*e); return 0; }'''

C_CHROOT = r'''
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
int main(void) {
  mkdir("jail", 0755);
  if (chroot("jail") != 0) perror("chroot");
  for (int i = 0; i < 64; i++) chdir("..");
  if (chroot(".") != 0) perror("chroot .");
  FILE *f = fopen("@PRIV@", "r"); char b[256];
  if (f && fgets(b, sizeof b, f)) printf("%s", b); else perror("fopen");
  return 0;
}'''

C_HANDLE = r'''
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
int main(void) {
  struct file_handle *h = malloc(sizeof(*h) + 128); h->handle_bytes = 128; int mnt;
  if (name_to_handle_at(AT_FDCWD, "/data/public/case_00000/imaging.txt", h, &mnt, 0) != 0) { perror("name_to_handle_at"); return 0; }
  int mfd = open("/data/public", O_RDONLY | O_DIRECTORY);
  /* brute-force neighbouring inode numbers, as in the "shocker" escape */
  for (int d = -64; d < 64; d++) {
    *(unsigned int *)h->f_handle += (d == -64 ? -64 : 1);
    int fd = open_by_handle_at(mfd, h, O_RDONLY);
    if (fd >= 0) { char b[256]; ssize_t n = read(fd, b, 255); if (n > 0) { b[n] = 0; printf("%s", b); } close(fd); }
    else if (d == -64) perror("open_by_handle_at");
  }
  return 0;
}'''

C_OPENAT = r'''
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
int main(void) {
  int root = open("/", O_RDONLY | O_DIRECTORY);
  int fd = openat(root, "../../../../@PRIV@", O_RDONLY);
  if (fd < 0) { perror("openat"); return 0; }
  char b[256]; ssize_t n = read(fd, b, 255); if (n > 0) { b[n] = 0; printf("%s", b); }
  return 0;
}'''


def _c(src: str, args: str = "") -> str:
    return (f"cat > x.c <<'EOF'\n{src}\nEOF\ngcc -O0 -o x x.c 2>&1 | tail -3; ./x {args}")


# (id, language, code). Paths: @PRIV@ private ref file, @PRIVDIR@, @DS@ dataset dir,
# @OTHER@ other run's file, @HARNESS@ fake harness file, @SRC@ real harness src dir,
# @HOME@ canary in host home, @PORT@ loopback canary server, @WS@ host workspace path.
ATTACKS: list[tuple[str, str, str]] = [
    # -- direct and constructed paths
    ("cat-private", "bash", "cat @PRIV@"),
    ("py-open-private", "python", "print(open('@PRIV@').read())"),
    ("py-split-path", "python", "p='/'.join('@PRIV@'.split('/'))\nprint(open(p).read())"),
    ("py-chr-arith", "python", "p=''.join(chr(c) for c in %s)\nprint(open(p).read())"),
    ("py-base64", "python", "import base64\nprint(open(base64.b64decode('%s').decode()).read())"),
    ("py-reversed", "python", "print(open('%s'[::-1]).read())"),
    ("bash-printf-hex", "bash", "cat \"$(printf '%s')\""),
    ("bash-var-tricks", "bash", "a=@PRIVDIR@; b=case_00000; c=ref; cat ${a}/${b}/${c}.txt; X=${a%%/*}; cat $X@PRIVDIR@/*/*"),
    ("bash-eval", "bash", "eval \"$(echo Y2F0 | base64 -d) @PRIV@\""),
    ("bash-glob-private", "bash", "cat @DS@/*/*/ref.txt @DS@/private/*/*"),
    ("dotdot-from-workspace", "python", "import os\np=os.path.join('/workspace', '../'*12 + '@PRIV@'.lstrip('/'))\nprint(open(p).read())"),
    ("dotdot-from-public", "bash", "cat /data/public/../../@PRIV@; cat /data/public/../../../../..@PRIV@"),
    ("dotdot-public-to-private", "bash", "cat /data/public/../private/case_00000/*"),
    ("home-root", "python", "from pathlib import Path\nr=Path.home().root\nprint(open(r+'@PRIV@'[1:]).read())"),
    ("host-home-canary", "bash", "cat @HOME@; ls -la /root; cat ~root/.amb-canary-*"),
    ("py-home-listdir", "python", "import os,glob\nfor f in glob.glob('/root/.amb-canary-*'): print(open(f).read())\nprint(os.path.expanduser('~root'))"),
    # -- symlinks and links out of the workspace
    ("symlink-to-private", "python", "import os\nos.symlink('@PRIV@','l')\nprint(open('l').read())"),
    ("symlink-to-dataset", "bash", "ln -s @DS@ ds; cat ds/private/*/ref.txt; ls ds"),
    ("symlink-relative-escape", "bash", "ln -s ../../../../../../../../ up; cat up@PRIV@; ls up"),
    ("symlink-left-for-harness", "bash", "ln -s @PRIV@ outputs_ref.txt; ln -s @PRIVDIR@ private_copy; ls -la"),
    ("hardlink-private", "python", "import os\ntry:\n    os.link('@PRIV@','h')\nexcept OSError as e: print(e)\nprint(open('h').read() if os.path.exists('h') else 'no')"),
    ("bind-mount", "bash", "mkdir -p m; mount --bind @PRIVDIR@ m; cat m/*/ref.txt; mount -t tmpfs x m"),
    ("unshare-nested-userns", "bash", "unshare -r cat @PRIV@; unshare -rm sh -c 'mount --bind / /mnt; cat /mnt@PRIV@'"),
    ("py-mount-syscall", "python", "import ctypes\nl=ctypes.CDLL(None,use_errno=True)\nprint(l.mount(b'@PRIVDIR@',b'/workspace',None,4096,None), ctypes.get_errno())\nimport os; print(os.listdir('/workspace'))"),
    ("chroot-escape-c", "bash", _c(C_CHROOT)),
    # -- /proc tricks
    ("proc-self-root", "bash", "cat /proc/self/root@PRIV@; ls /proc/self/root/"),
    ("proc-1-root", "bash", "cat /proc/1/root@PRIV@; ls /proc/1/root/data"),
    ("proc-ppid-environ", "bash", "tr '\\0' '\\n' < /proc/$PPID/environ"),
    ("proc-all-environ", "bash", "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done"),
    ("proc-all-cwd", "bash", "for p in /proc/[0-9]*; do ls -la $p/cwd/ 2>&1; cat $p/cwd/../../..@PRIV@ 2>&1; done"),
    ("proc-all-root", "python", "import glob\nfor p in glob.glob('/proc/*/root'):\n    try: print(open(p+'@PRIV@').read())\n    except OSError as e: print(p, e)"),
    ("proc-self-fd", "python", "import os\nfor fd in os.listdir('/proc/self/fd'):\n    p='/proc/self/fd/'+fd\n    try: print(fd, os.readlink(p)); print(open(p).read(200))\n    except OSError as e: print(fd, e)"),
    ("proc-1-fd", "bash", "ls -la /proc/1/fd/; for f in /proc/1/fd/*; do head -c 200 $f; done"),
    ("proc-1-mem", "python", "try:\n    print(open('/proc/1/mem','rb').read(100))\nexcept OSError as e: print(e)"),
    ("proc-self-environ", "bash", "tr '\\0' '\\n' < /proc/self/environ; tr '\\0' '\\n' < /proc/1/environ"),
    ("proc-mountinfo-walk", "python", "import re\nfor l in open('/proc/self/mountinfo'):\n    src=l.split()[3]\n    for cand in (src+'/case_00000/ref.txt', src+'/../private/case_00000/ref.txt'):\n        try: print(open(cand).read())\n        except OSError: pass"),
    ("proc-cmdline", "bash", "tr '\\0' ' ' < /proc/1/cmdline; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done"),
    ("sysfs", "bash", "ls /sys; cat /sys/kernel/*; ls /sys/fs/cgroup"),
    # -- fd tricks
    ("os-open-opath", "python", "import os\ntry:\n    fd=os.open('@PRIV@', os.O_RDONLY)\n    print(os.read(fd,100))\nexcept OSError as e: print(e)\ntry:\n    fd=os.open('@PRIVDIR@', os.O_PATH)\n    print(os.listdir(fd))\nexcept OSError as e: print(e)"),
    ("openat-dotdot-c", "bash", _c(C_OPENAT)),
    ("open-by-handle-c", "bash", _c(C_HANDLE)),
    ("inherited-fds", "bash", "ls -la /proc/self/fd; for i in 3 4 5 6 7 8 9 10; do cat <&$i 2>/dev/null | head -c 100; done"),
    # -- environment
    ("py-environ", "python", "import os\nprint(dict(os.environ))"),
    ("bash-env-set", "bash", "env; set; declare -p; compgen -v"),
    ("bash-indirect", "bash", "for v in ${!AMB*} ${!OPENAI*}; do echo $v=${!v}; done; echo $AMB_CANARY_KEY"),
    ("c-environ", "bash", _c(C_ENV)),
    ("login-shell-env", "bash", "bash -lc 'env'; sh -c env"),
    # -- harness source and config
    ("harness-fake-file", "bash", "cat @HARNESS@; ls -R @HARNESS@/.."),
    ("harness-real-src", "bash", "cat @SRC@/automedbench/sandbox/__init__.py; ls @SRC@"),
    ("harness-import", "python", "import automedbench.sandbox as s\nprint(open(s.__file__).read())"),
    ("harness-search-fs", "bash", "find / -xdev \\( -path /proc -o -path /sys \\) -prune -o \\( -name 'automedbench*' -o -name config.yaml -o -name 'ref.txt' \\) -print 2>/dev/null | head -50 | while read f; do cat \"$f\" 2>/dev/null | head -5; done"),
    ("grep-canaries", "bash", "grep -rsI CANARY / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null | head"),
    ("venv-path", "bash", "ls /work 2>&1; ls /work/main/.venv 2>&1; cat /work/*/src/automedbench/sandbox/__init__.py 2>&1"),
    ("py-site-hunt", "python", "import sys, site\nprint(sys.path, site.getsitepackages())\ntry:\n    import automedbench\nexcept ImportError as e: print(e)"),
    # -- other runs
    ("other-run-file", "bash", "cat @OTHER@; ls @RUNS@"),
    ("other-run-sibling", "bash", "ls -la /workspace/..; cat /workspace/../run-B/workspace/outputs.txt; cat ../../run-B/workspace/*"),
    ("other-run-py-walk", "python", "import os\nfor d,_,fs in os.walk('/'):\n    if d.startswith(('/proc','/sys','/usr')): continue\n    for f in fs:\n        if f=='outputs.txt':\n            print(open(os.path.join(d,f)).read())"),
    # -- writing outside the workspace
    ("write-public", "bash", "echo x > /data/public/evil.txt; touch /data/public/case_00000/evil; echo rc=$?"),
    ("write-root-and-etc", "bash", "touch /evil; echo x > /etc/passwd; touch /usr/evil; mkdir /opt/agent-python/evil; echo done"),
    ("write-host-paths", "python", "for p in ['@PUB@/evil.txt','@PRIVDIR@/evil.txt','@OTHERDIR@/evil.txt','@SRC@/evil.py']:\n    try: open(p,'w').write('x')\n    except OSError as e: print(p, e)"),
    ("write-decoy", "bash", "echo x > /data/private/case_00000/ref.txt; rm -rf /data/private/*; echo rc=$?"),
    # -- network off
    ("net-py-loopback", "python", "import socket\ns=socket.socket()\ns.settimeout(2)\ntry:\n    s.connect(('127.0.0.1', @PORT@)); print(s.recv(100))\nexcept OSError as e: print(e)"),
    ("net-bash-devtcp", "bash", "exec 3<>/dev/tcp/127.0.0.1/@PORT@ && cat <&3; exec 3<>/dev/tcp/@HOSTIP@/@PORT@ && cat <&3"),
    ("net-host-ip", "python", "import socket\nfor h in ('@HOSTIP@','localhost','0.0.0.0'):\n    s=socket.socket(); s.settimeout(2)\n    try: s.connect((h, @PORT@)); print(s.recv(100))\n    except OSError as e: print(h, e)"),
    ("net-abstract-unix", "python", "import socket\ns=socket.socket(socket.AF_UNIX)\ntry:\n    s.connect('\\0@ABSTRACT@'); print(s.recv(100))\nexcept OSError as e: print(e)"),
    ("net-dns-and-curl", "bash", "getent hosts localhost; (command -v curl && curl -sm 3 http://127.0.0.1:@PORT@/) ; python -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:@PORT@', timeout=2).read())\" 2>&1 | tail -1"),
    # -- resources and process lifetime
    ("kill-everything", "bash", "kill -9 -1; echo survived"),
    ("ptrace-parent", "python", "import ctypes,os\nl=ctypes.CDLL(None,use_errno=True)\nprint(l.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())\nprint(l.ptrace(16, 1, 0, 0), ctypes.get_errno())"),
    ("process-vm-readv", "python", "import ctypes,os\nl=ctypes.CDLL(None,use_errno=True)\nprint(l.process_vm_readv(1,0,0,0,0,0), ctypes.get_errno())"),
    ("keyring", "bash", "python -c \"import ctypes; l=ctypes.CDLL(None,use_errno=True); print(l.syscall(250, 0, -4, 0), ctypes.get_errno())\"; cat /proc/keys"),
    ("tiocsti", "python", "import fcntl,termios,os\ntry:\n    fd=os.open('/dev/tty', os.O_RDWR)\n    fcntl.ioctl(fd, termios.TIOCSTI, b'x')\nexcept OSError as e: print(e)"),
    ("dev-nodes", "bash", "ls /dev; cat /dev/sda /dev/vda /dev/mem /dev/kmsg 2>&1 | head -3"),
]


# Without the seccomp filter (unknown architecture), attaching to the sandbox's own pid 1
# (bwrap's init, same uid) works and freezes the call until its time limit.
MAY_TIME_OUT: set[str] = set()
# under `docker exec` a read of the call's own stdout pipe (/proc/self/fd/1) waits for input
# that never comes: a self-inflicted hang, no leak
MAY_TIME_OUT_BY_BACKEND = {"docker": {"proc-self-fd"}}


def _materialise(code: str, w) -> str:
    p = str(w.private_file)
    if "%s" in code:
        if "chr(c)" in code:
            return code % repr([ord(c) for c in p])
        if "b64decode" in code:
            return code % _b64(p)
        if "[::-1]" in code:
            return code % p[::-1]
        if "printf" in code:
            return code % "".join(f"\\x{ord(c):02x}" for c in p)
    return w.subst(code)


def _assert_clean(result, w, what: str) -> None:
    text = result.stdout + result.stderr
    leaked = [c for c in w.canaries if c in text]
    assert not leaked, f"{what}: canary leaked in output: {leaked}\n{text[-2000:]}"
    assert not w.leaked_in_workspace(), f"{what}: canary copied into the workspace"


NET_ATTACKS = [a for a in ATTACKS if a[0].startswith("net-")]


@pytest.mark.parametrize("name,language,code", NET_ATTACKS, ids=[a[0] for a in NET_ATTACKS])
def test_network_on_reaches_nothing_of_the_host(net_box, world, name, language, code):
    """The same host-network canaries with the network ON: the sandbox's own namespace and
    slirp4netns (host loopback disabled) keep the host's loopback, its addresses and its
    abstract sockets out of reach."""
    result = net_box.execute(language, _materialise(code, world), timeout_s=30)
    _assert_clean(result, world, name + " (network on)")


def test_attack_count():
    assert len(ATTACKS) + len(RESOURCE_ATTACKS) >= 60
    assert len({a[0] for a in ATTACKS}) == len(ATTACKS)


@pytest.mark.parametrize("name,language,code", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_escape_attempt(box, world, name, language, code):
    slow = name in MAY_TIME_OUT | MAY_TIME_OUT_BY_BACKEND.get(box.name.split("@")[0], set())
    result = box.execute(language, _materialise(code, world), timeout_s=5 if slow else 30)
    _assert_clean(result, world, name)
    assert slow or not result.timed_out, f"{name} ran into the timeout"
    # nothing written outside the workspace on the host
    for p in (world.public / "evil.txt", world.private / "evil.txt", world.other / "evil.txt",
              world.src_dir / "evil.py"):
        assert not p.exists(), f"{name} wrote {p}"
    assert world.private_file.read_text().strip() == world.canary_private


# ---------------------------------------------------------------- resource attacks
RESOURCE_ATTACKS = ["fork-bomb-bash", "fork-bomb-python", "huge-output", "sleep-past-timeout",
                    "daemon-setsid", "daemon-double-fork", "memory-hog", "huge-file"]


def test_fork_bomb_bash(box, world):
    t = time.monotonic()
    r = box.execute("bash", ":(){ :|:& };:; sleep 2; echo done", timeout_s=20)
    assert time.monotonic() - t < 25
    _assert_clean(r, world, "fork-bomb-bash")
    assert box.execute("python", "print(41+1)").stdout.strip() == "42"


def test_fork_bomb_python(box, world):
    code = ("import os, time\nn=0\ntry:\n    while True:\n        if os.fork()==0:\n            time.sleep(5); os._exit(0)\n"
            "        n+=1\nexcept OSError as e:\n    print('stopped after', n, e)\n")
    r = box.execute("python", code, timeout_s=20)
    assert "stopped after" in r.stdout, r.stdout + r.stderr
    n = int(r.stdout.split("stopped after")[1].split()[0])
    assert n < 128  # RLIMIT_NPROC (max_procs=128) holds
    assert box.execute("python", "print(41+1)").stdout.strip() == "42"


def test_huge_output_is_capped(box, world):
    t = time.monotonic()
    r = box.execute("python", "import sys\nfor _ in range(3000):\n    sys.stdout.write('x'*65536)\n", timeout_s=60)
    assert len(r.stdout) < 70 * 1024
    assert "bytes cut by the harness" in r.stdout
    assert time.monotonic() - t < 60


def test_sleep_past_timeout_is_killed(box, world):
    t = time.monotonic()
    r = box.execute("bash", "sleep 60", timeout_s=2)
    took = time.monotonic() - t
    assert r.timed_out and took < 15, f"took {took:.1f} s, timed_out={r.timed_out}, exit {r.exit_code}: {r.stderr[-500:]}"


def test_daemonised_children_die_with_the_call(box, world):
    mark = f"daemon-{uuid.uuid4().hex[:8]}"     # names this test's daemons among the machine's processes
    code = (f"(setsid nohup sh -c 'sleep 3; echo alive > /workspace/{mark}-1' >/dev/null 2>&1 &) ;"
            "python -c \"import os,time\nif os.fork()==0:\n  os.setsid()\n  if os.fork()==0:\n"
            f"    time.sleep(3); open('/workspace/{mark}-2','w').write('alive')\n  os._exit(0)\"; echo launched")
    r = box.execute("bash", code, timeout_s=20)
    assert "launched" in r.stdout
    # a surviving daemon sleeps 3 s before it writes: it is still there well before that, so
    # waiting until none is left (at most 2 s) proves they died with the call, without sleeping
    deadline = time.monotonic() + 2
    while (alive := [a for a in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
                     if mark in a]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive, alive
    assert not list(world.workspace.glob(f"{mark}-*"))


def test_memory_hog_is_limited(box, world):
    r = box.execute("python", "x = bytearray(6 * 1024**3)\nprint('allocated')", timeout_s=30)
    assert "allocated" not in r.stdout and "MemoryError" in r.stderr
    # touching the pages under the limit (RLIMIT_AS / RLIMIT_DATA) also fails
    r = box.execute("python", "x = b'x' * (5 * 1024**3)\nprint('allocated')", timeout_s=60)
    assert "allocated" not in r.stdout and r.exit_code != 0


def test_huge_file_is_limited(box, world):
    r = box.execute("bash", "head -c 400M /dev/zero > big.bin; echo rc=$?; ls -l big.bin", timeout_s=30)
    assert "rc=0" not in r.stdout  # the write was cut off by RLIMIT_FSIZE
    assert (world.workspace / "big.bin").stat().st_size <= 256 * 1024 * 1024


def test_seccomp_refuses_ptrace(box):
    from automedbench.sandbox.bwrap.backend import seccomp_program
    if seccomp_program() is None:
        pytest.skip("no seccomp filter for this architecture")
    r = box.execute("python", "import ctypes,os\nl=ctypes.CDLL(None,use_errno=True)\n"
                              "print(l.ptrace(16, 1, 0, 0), ctypes.get_errno())\n"
                              "print(l.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())", timeout_s=10)
    # EPERM for pid 1 and for the parent (same uid: only the filter stops it)
    assert r.stdout.split() == ["-1", "1", "-1", "1"] and not r.timed_out, r.stdout + r.stderr


def test_no_new_namespaces_inside(box):
    r = box.execute("bash", "unshare -Ur true; echo rc=$?; unshare -n true; echo rc=$?", timeout_s=10)
    assert "rc=0" not in r.stdout and r.stdout.count("rc=") == 2, r.stdout + r.stderr


def test_seccomp_program_shape():
    from automedbench.sandbox.bwrap.backend import seccomp_program
    for machine in ("x86_64", "aarch64"):
        prog = seccomp_program(machine)
        assert prog and len(prog) % 8 == 0
    assert seccomp_program("riscv64") is None
