/* SPDX-License-Identifier: MIT */
/* /init of the initramfs that ci/armv7-system.sh boots under
 * qemu-system-arm (Debian's armmp kernel, -M virt -cpu cortex-a15): checks
 * that the kernel set HWCAP_EVTSTRM and that the header reads ARMv7 CNTVCT,
 * runs each test program in /tests (the names given on the kernel command
 * line as tsc_tests=a,b,c; else every file there), prints one marker line
 * each, then powers the machine off. Built -static with the armhf cross gcc.
 *
 * Marker lines (parsed by ci/armv7-system.sh):
 *   TSC-ARMV7: hwcap=0x... evtstrm=1 counter="ARMv7 CNTVCT" hz=... cntvct_advances=1
 *   TSC-ARMV7: test NAME exit=N seconds=S
 *   TSC-ARMV7: done */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <linux/reboot.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsc_timer.h"

#define PER_TEST_SECONDS 150

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void power_off(void)
{
    fflush(NULL);
    sync();
    syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF, NULL);
    for (;;) pause(); /* init must not exit: the kernel would panic */
}

/* The console on fds 0-2: the initramfs holds no /dev/console node (cpio
 * made without root cannot hold one), so mount devtmpfs and open it. */
static void console(void)
{
    int fd;
    mkdir("/dev", 0755);
    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
    mkdir("/proc", 0755);
    mount("proc", "/proc", "proc", 0, NULL);
    mkdir("/tmp", 01777);
    fd = open("/dev/console", O_RDWR | O_NOCTTY);
    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (fd > 2) close(fd);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static int run_test(const char *name)
{
    char path[256];
    char *argv[2];
    char *envp[] = {"PATH=/tests", "HOME=/", "TMPDIR=/tmp", "TERM=dumb", "TSC_TEST_EMULATED=1", NULL};
    double t0 = mono_s(), deadline = t0 + PER_TEST_SECONDS;
    int status = 0, code;
    pid_t pid, w;

    snprintf(path, sizeof path, "/tests/%s", name);
    printf("TSC-ARMV7: start %s\n", name);
    pid = fork();
    if (pid < 0) {
        printf("TSC-ARMV7: test %s exit=fork-failed seconds=0\n", name);
        return -1;
    }
    if (pid == 0) {
        argv[0] = path;
        argv[1] = NULL;
        setsid(); /* its own process group, so a timeout kills it all */
        execve(path, argv, envp);
        printf("exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    /* Wait for it, reaping whatever else dies here (init adopts orphans). */
    for (;;) {
        w = waitpid(-1, &status, WNOHANG);
        if (w == pid) break;
        if (w > 0) continue;
        if (mono_s() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            printf("TSC-ARMV7: test %s exit=timeout seconds=%.1f\n", name, mono_s() - t0);
            return -1;
        }
        usleep(20000);
    }
    kill(-pid, SIGKILL); /* leftovers of its group, if any */
    if (WIFEXITED(status))
        code = WEXITSTATUS(status);
    else
        code = 128 + WTERMSIG(status);
    fflush(stdout);
    printf("TSC-ARMV7: test %s exit=%d seconds=%.1f\n", name, code, mono_s() - t0);
    return code;
}

/* The test names from the kernel command line (tsc_tests=a,b,c). */
static int names_from_cmdline(char *buf, size_t size, char **names, int max)
{
    FILE *f = fopen("/proc/cmdline", "r");
    char *p, *tok, *save = NULL;
    int n = 0;
    if (!f) return 0;
    if (!fgets(buf, (int)size, f)) buf[0] = 0;
    fclose(f);
    p = strstr(buf, "tsc_tests=");
    if (!p) return 0;
    p += strlen("tsc_tests=");
    p[strcspn(p, " \n")] = 0;
    for (tok = strtok_r(p, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
        names[n++] = tok;
    return n;
}

int main(void)
{
    static char cmdline[4096];
    char *names[64];
    unsigned long hwcap;
    const char *counter;
    uint64_t a, b;
    double hz, t;
    int n, i, evtstrm, advances;
    DIR *d;
    struct dirent *e;

    console();
    printf("TSC-ARMV7: init up after %.2f s of kernel boot\n", mono_s());

    hwcap = getauxval(AT_HWCAP);
    evtstrm = (hwcap & (1ul << 21)) != 0;
    counter = tsc_counter_name();
    /* The counter the header reads must move. */
    a = tsc_ticks_before();
    t = mono_s();
    while (mono_s() - t < 0.01) { }
    b = tsc_ticks_after();
    advances = b > a;
    hz = tsc_ticks_per_second();
    printf("TSC-ARMV7: hwcap=0x%lx evtstrm=%d counter=\"%s\" hz=%.0f cntvct_advances=%d\n",
           hwcap, evtstrm, counter, hz, advances);

    n = names_from_cmdline(cmdline, sizeof cmdline, names, 64);
    if (n == 0 && (d = opendir("/tests")) != NULL) {
        while (n < 64 && (e = readdir(d)) != NULL)
            if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
        closedir(d);
    }
    for (i = 0; i < n; i++)
        run_test(names[i]);
    printf("TSC-ARMV7: done after %.1f s\n", mono_s());
    power_off();
    return 0;
}
