/* Keeping the ranks of CPU devices off the GPU ranks' cores (dist_cores.h). Linux: the cores
 * a thread may run on are its affinity (sched_setaffinity), and a process's threads are
 * listed in /proc/self/task. */
#define _GNU_SOURCE /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): CPU_SET */
#include "dist/dist_cores.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "dist/dist.h"

enum { MASK_BYTES = CPU_SETSIZE / 8 };

/* What each rank tells the others. */
typedef struct rank_cores {
    int node, gpu;
    unsigned char mask[MASK_BYTES]; /* the cores it may run on */
} rank_cores;

static int has(const unsigned char *m, int c)
{
    return (m[c / 8] >> (c % 8)) & 1;
}

static void put(unsigned char *m, int c)
{
    m[c / 8] |= (unsigned char)(1u << (c % 8));
}

static void to_set(const unsigned char *m, cpu_set_t *set)
{
    CPU_ZERO(set);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (has(m, c))
            CPU_SET(c, set);
}

static void from_set(const cpu_set_t *set, unsigned char *m)
{
    memset(m, 0, MASK_BYTES);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set))
            put(m, c);
}

static int empty(const unsigned char *m)
{
    for (int i = 0; i < MASK_BYTES; i++)
        if (m[i])
            return 0;
    return 1;
}

void dist_cores_text(const unsigned char *mask, size_t bytes, char *out, size_t cap)
{
    size_t at = 0;
    int n = (int)(bytes * 8);
    if (cap == 0)
        return;
    out[0] = '\0';
    for (int c = 0; c < n;) {
        if (!has(mask, c)) {
            c++;
            continue;
        }
        int e = c;
        while (e + 1 < n && has(mask, e + 1))
            e++;
        char item[32];
        int k = e > c ? snprintf(item, sizeof item, "%s%d-%d", at ? "," : "", c, e)
                      : snprintf(item, sizeof item, "%s%d", at ? "," : "", c);
        if (at + (size_t)k + 4 > cap) {
            snprintf(out + at, cap - at, "...");
            return;
        }
        memcpy(out + at, item, (size_t)k + 1);
        at += (size_t)k;
        c = e + 1;
    }
}

/* The cores the rank at ME of ALL (the N ranks of its machine, in local rank order) may use:
 * those it was given, a CPU rank's cut to its range of the cores no GPU rank keeps. */
static void plan_mine(const rank_cores *all, int n, int me, int reserve, unsigned char *mine)
{
    unsigned char kept[MASK_BYTES] = {0}, every[MASK_BYTES] = {0};
    for (int i = 0; i < n; i++) {
        for (int b = 0; b < MASK_BYTES; b++)
            every[b] |= all[i].mask[b];
        int left = all[i].gpu ? reserve : 0;
        for (int c = 0; c < CPU_SETSIZE && left > 0; c++)
            if (has(all[i].mask, c) && !has(kept, c))
                put(kept, c), left--;
    }
    /* the rest of the machine's cores, cut into contiguous ranges for its CPU ranks */
    int free_cores[CPU_SETSIZE], n_free = 0, n_cpu = 0, my_cpu = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (has(every, c) && !has(kept, c))
            free_cores[n_free++] = c;
    for (int i = 0; i < n; i++)
        if (!all[i].gpu) {
            if (i == me)
                my_cpu = n_cpu;
            n_cpu++;
        }
    const unsigned char *own = all[me].mask;
    memcpy(mine, own, MASK_BYTES);
    if (my_cpu < 0)
        return;
    unsigned char range[MASK_BYTES] = {0}, less[MASK_BYTES] = {0};
    for (int k = n_free * my_cpu / n_cpu; k < n_free * (my_cpu + 1) / n_cpu; k++)
        if (has(own, free_cores[k]))
            put(range, free_cores[k]);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (has(own, c) && !has(kept, c))
            put(less, c);
    if (!empty(range))
        memcpy(mine, range, MASK_BYTES);
    else if (!empty(less))
        memcpy(mine, less, MASK_BYTES);
}

/* Binds every thread of this process to MASK; *SEEN: the union of their cores afterwards. */
static int bind_threads(const unsigned char *mask, unsigned char *seen, cn_error *err)
{
    cpu_set_t set;
    to_set(mask, &set);
    memset(seen, 0, MASK_BYTES);
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return cn_fail(err, CN_ERR_RUNTIME, "MPI rank %d cannot list its threads in "
                       "/proc/self/task to bind them to cores: %s", dist_rank(),
                       strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(dir)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0)
            continue;
        /* a thread that ended meanwhile is no matter */
        if (sched_setaffinity((pid_t)tid, sizeof set, &set) != 0 && errno != ESRCH) {
            char text[256];
            dist_cores_text(mask, MASK_BYTES, text, sizeof text);
            rc = cn_fail(err, CN_ERR_RUNTIME, "MPI rank %d cannot bind its thread %ld to cores "
                         "%s: %s", dist_rank(), tid, text, strerror(errno));
        }
        cpu_set_t now;
        if (rc == 0 && sched_getaffinity((pid_t)tid, sizeof now, &now) == 0) {
            unsigned char m[MASK_BYTES];
            from_set(&now, m);
            for (int b = 0; b < MASK_BYTES; b++)
                seen[b] |= m[b];
        }
    }
    closedir(dir);
    return rc;
}

int dist_cores_place(int gpu, int reserve, char *cores, size_t cap, cn_error *err)
{
    rank_cores me = {dist_node(), gpu != 0, {0}};
    cpu_set_t set;
    int R = dist_size(), rc = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        rc = cn_fail(err, CN_ERR_RUNTIME, "MPI rank %d cannot read the cores it may run on: %s",
                     dist_rank(), strerror(errno));
    else
        from_set(&set, me.mask);
    rank_cores *all = R > 1 && !rc ? calloc((size_t)R, sizeof *all) : NULL;
    if (R > 1 && !rc && !all)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    /* every rank takes part in the gather, whatever failed before it on this one */
    rc = dist_agree(rc, err);
    if (!rc && all)
        rc = dist_allgather(&me, all, sizeof me, err);
    unsigned char mine[MASK_BYTES], seen[MASK_BYTES];
    memcpy(mine, me.mask, MASK_BYTES);
    memcpy(seen, me.mask, MASK_BYTES);
    if (!rc && all && reserve > 0) {
        /* the ranks of this machine, in local rank order (world rank order within it) */
        int n = 0, at = 0, gpus = 0, cpus = 0;
        for (int r = 0; r < R; r++)
            if (all[r].node == me.node) {
                if (r == dist_rank())
                    at = n;
                gpus += all[r].gpu;
                cpus += !all[r].gpu;
                all[n++] = all[r];
            }
        if (gpus > 0 && cpus > 0)
            plan_mine(all, n, at, reserve, mine);
        if (gpus > 0 && cpus > 0 && !me.gpu)
            rc = bind_threads(mine, seen, err);
    }
    free(all);
    dist_cores_text(seen, MASK_BYTES, cores, cap);
    return dist_agree(rc, err);
}
