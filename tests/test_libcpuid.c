/* SPDX-License-Identifier: MIT */
/* tsc_features() against libcpuid's cpu_identify(): the same CPUID bits.
 * Where the two differ, the difference must have a known reason, printed;
 * where CPUID and the RDTSCP instruction disagree, that is printed too. */
#include "tsc_test.h"

#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libcpuid/libcpuid.h>

static struct cpu_id_t id;

static int setup(void **state)
{
    (void)state;
    if (!cpuid_present() || cpu_identify(NULL, &id) != 0) {
        print_error("libcpuid: %s\n", cpuid_error());
        return -1;
    }
    return 0;
}

/* 1 when a difference between ours and libcpuid's flag is explained. */
static int explained(const char *flag, int ours, int theirs)
{
    /* libcpuid 0.6 maps 0x80000001:EDX[27] and 0x80000007:EDX[8] in its
     * AMD feature table only; on other vendors it reports 0 for both. */
    if (id.vendor != VENDOR_AMD && ours == 1 && theirs == 0 &&
        (!strcmp(flag, "RDTSCP") || !strcmp(flag, "CONSTANT_TSC"))) {
        print_message("      %s: CPUID says 1, libcpuid 0: libcpuid reads it for AMD only "
                      "(vendor %s)\n", flag, id.vendor_str);
        return 1;
    }
    return 0;
}

static void check(const char *flag, int ours, int theirs)
{
    print_message("      %-13s tsc_features %d, libcpuid %d\n", flag, ours, theirs);
    EXPECT(ours == theirs || explained(flag, ours, theirs),
           "%s: tsc_features says %d, libcpuid says %d, and no known reason", flag, ours, theirs);
}

static void test_features_agree_with_libcpuid(void **state)
{
    struct tsc_features f = tsc_features();
    (void)state;
    print_message("      %s, %s\n", id.vendor_str, id.brand_str);
    check("TSC", f.has_tsc, id.flags[CPU_FEATURE_TSC] != 0);
    check("RDTSCP", f.has_rdtscp, id.flags[CPU_FEATURE_RDTSCP] != 0);
    check("CONSTANT_TSC", f.has_invariant_tsc, id.flags[CPU_FEATURE_CONSTANT_TSC] != 0);
    check("HYPERVISOR", f.hypervisor, id.flags[CPU_FEATURE_HYPERVISOR] != 0);
}

/* CPUID's RDTSCP bit against the instruction itself, run in a child. A
 * VM may hide the bit while the instruction works (tsc_timer then follows
 * CPUID and never executes it), or advertise it while it faults. */
static void test_rdtscp_bit_against_the_instruction(void **state)
{
    struct tsc_features f = tsc_features();
    int status = 0, executes;
    pid_t pid;
    (void)state;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        uint32_t aux;
        tsc__rdtscp_fenced(&aux);
        _exit(0);
    }
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait failed");
    executes = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (executes != f.has_rdtscp)
        print_message("      CPUID %s RDTSCP but the instruction %s: tsc_timer %s\n",
                      f.has_rdtscp ? "advertises" : "hides", executes ? "executes" : "faults",
                      f.uses_rdtscp ? "executes RDTSCP" : "uses LFENCE;RDTSC;LFENCE after a region");
    else
        print_message("      CPUID and the instruction agree: RDTSCP %s\n",
                      executes ? "works" : "is absent");
    /* Whatever CPUID says, the header must never run a faulting RDTSCP. */
    EXPECT(!f.uses_rdtscp || executes, "tsc_timer executes RDTSCP, which faults here");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_features_agree_with_libcpuid),
        cmocka_unit_test(test_rdtscp_bit_against_the_instruction),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
