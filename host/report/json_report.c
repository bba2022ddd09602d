#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "version.h"
#include "common/files.h"
#include "report/report.h"

/* The table's rows (the flood's flows, docs/models.md "Traffic"), one per line: a reference
 * model prints the same text, which json_compare compares as is. */
static void print_table(const run_results *r, FILE *out)
{
    const metric_table *t = r->declared->table;
    fprintf(out, "  \"%s\": [\n", t->name);
    for (int i = 0; i < r->n_rows; i++) {
        fprintf(out, "    {\"name\": ");
        json_print_string(out, r->rows[i].name);
        for (int c = 0; c < t->n_cols && c < REPORT_MAX_COLUMNS; c++) {
            char v[WIDE_TEXT];
            results_cell_text(r, i, c, v);
            fprintf(out, ", \"%s\": %s", t->cols[c].name, v);
        }
        fprintf(out, "}%s\n", i + 1 < r->n_rows ? "," : "");
    }
    fprintf(out, "  ],\n");
}

const char *results_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
                                                                                 : "a signal";
}

/* The members of R's metrics that are present and in (CONTRACT 1) or out of the contract. */
static void print_metrics(const run_results *r, int contract, FILE *out)
{
    for (int i = 0; i < r->n_metrics; i++) {
        if (!r->metrics[i].set || results_metric(r, i)->contract != contract)
            continue;
        char v[RESULTS_VALUE_CAP];
        if (results_value_text(r, i, v, sizeof v) == 0)
            fprintf(out, "  \"%s\": %s,\n", r->metrics[i].name, v);
    }
}

/* "contract", the last member: the members json_compare compares (a table with rows
 * included). Last, so that the members before it are where they always were. */
static void print_contract(const run_results *r, FILE *out)
{
    fprintf(out, ",\n  \"contract\": [\"model\", \"seed\"");
    for (int i = 0; i < r->n_metrics; i++)
        if (r->metrics[i].set && results_metric(r, i)->contract && r->metrics[i].elem == 0)
            fprintf(out, ", \"%s\"", r->metrics[i].name);
    if (r->n_rows > 0)
        fprintf(out, ", \"%s\"", r->declared->table->name);
    fprintf(out, "]");
}

void csv_print_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void json_print_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_tail(const run_results *r, FILE *out);

/* Model and seed, the contract members in their declared order (a table last), the metrics
 * outside the contract, what every run has, then the list of the contract's members. */
void report_print_json(const run_results *r, FILE *out)
{
    fprintf(out, "{\n  \"model\": ");
    json_print_string(out, r->model);
    fprintf(out, ",\n  \"seed\": %llu,\n", (unsigned long long)r->seed);
    print_metrics(r, 1, out);
    if (r->n_rows > 0)
        print_table(r, out);
    print_metrics(r, 0, out);
    print_tail(r, out);
    print_contract(r, out);
    fprintf(out, "\n}\n");
}

/* The model's knob (docs/architecture.md, "Adaptive granularity"): the value chosen and
 * what each value measured; nothing for a model without one. */
static void print_granularity(const granularity_report *g, FILE *out)
{
    if (!g->knob[0])
        return;
    fprintf(out, "  \"granularity\": {\"knob\": ");
    json_print_string(out, g->knob);
    fprintf(out, ", \"adaptive\": %s, \"start\": %lld, \"final\": %lld", g->adaptive ? "true"
            : "false", (long long)g->start, (long long)g->final);
    if (g->adaptive) {
        fprintf(out, ", \"periods\": %llu, \"probes\": %llu, \"moves\": %llu, "
                "\"steps_left_out\": %llu, \"rates\": [", (unsigned long long)g->periods,
                (unsigned long long)g->probes, (unsigned long long)g->moves,
                (unsigned long long)g->skipped);
        int first = 1;
        for (int i = 0; i < g->n_rungs; i++)
            if (g->rung_rate[i] >= 0) {
                fprintf(out, "%s{\"value\": %lld, \"events_per_s\": %.1f}", first ? "" : ", ",
                        (long long)g->rung_value[i], g->rung_rate[i]);
                first = 0;
            }
        fputc(']', out);
    }
    fprintf(out, "},\n");
}

/* The members every model's results share: measurements, devices, injector, host. */
static void print_tail(const run_results *r, FILE *out)
{
    double events_per_s = r->wall_s > 0 ? (double)results_events(r) / r->wall_s : 0.0;
    /* a run of batches (whole packets): the engine's steps, which the model's "windows" are
     * not; no member of the contract */
    if (r->batched)
        fprintf(out, "  \"batches\": %lld,\n", (long long)r->batches);
    fprintf(out, "  \"wall_s\": %.6f,\n", r->wall_s);
    fprintf(out, "  \"events_per_s\": %.1f,\n", events_per_s);
    fprintf(out, "  \"setup_s\": %.6f,\n", r->setup_s);
    fprintf(out, "  \"build_s\": %.6f,\n", r->build_s);
    fprintf(out, "  \"device_bytes\": %llu,\n", (unsigned long long)r->device_bytes);
    fprintf(out, "  \"devices\": [");
    for (int i = 0; i < r->n_devices; i++) {
        const device_report *d = &r->devices[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        json_print_string(out, d->name);
        fprintf(out, ", \"platform\": ");
        json_print_string(out, d->platform);
        fprintf(out, ", \"type\": ");
        json_print_string(out, d->type);
        /* busy_s: measured over the timed_sets, estimated for the others (docs/user-guide.md) */
        fprintf(out, ", \"event_sets\": %llu, \"timed_sets\": %llu, \"events\": %llu, "
                "\"busy_s\": %.6f, \"share\": %.6f, \"bytes_moved\": %llu",
                (unsigned long long)d->event_sets, (unsigned long long)d->timed_sets,
                (unsigned long long)d->events, d->busy_s, d->share,
                (unsigned long long)d->bytes_moved);
        if (r->ranks.count > 1) { /* several MPI ranks: whose device it is, on which cores */
            fprintf(out, ", \"rank\": %d", d->rank);
            if (d->cores[0]) {
                fprintf(out, ", \"cores\": ");
                json_print_string(out, d->cores);
            }
        }
        if (d->failed) { /* left out under [devices] on_failure = continue */
            fprintf(out, ", \"failed\": true, \"error\": ");
            json_print_string(out, d->failure);
        }
        fputc('}', out);
    }
    fprintf(out, "%s],\n", r->n_devices ? "\n  " : "");
    const inject_report *ij = &r->injector;
    fprintf(out, "  \"injector\": {\"policy\": ");
    json_print_string(out, ij->policy);
    fprintf(out, ", \"decisions\": {\"static\": %llu, \"rapid\": %llu, \"advanced\": %llu}, "
            "\"migrations\": %llu, \"switches\": %llu, \"exchanged_bytes\": %llu},\n",
            (unsigned long long)ij->decisions[0], (unsigned long long)ij->decisions[1],
            (unsigned long long)ij->decisions[2], (unsigned long long)ij->migrations,
            (unsigned long long)ij->switches, (unsigned long long)ij->exchanged_bytes);
    if (r->ranks.count > 1) /* docs/user-guide.md, "Several processes" */
        fprintf(out, "  \"ranks\": {\"count\": %d, \"sent_bytes\": %llu, \"exchange_s\": %.6f, "
                "\"agree_s\": %.6f, \"moves\": %llu, \"looks\": %llu},\n", r->ranks.count,
                (unsigned long long)r->ranks.sent_bytes, r->ranks.exchange_s, r->ranks.agree_s,
                (unsigned long long)r->ranks.moves, (unsigned long long)r->ranks.looks);
    print_granularity(&r->granularity, out);
    fprintf(out, "  \"host\": {\"plan_s\": %.6f, \"enqueue_s\": %.6f, \"end_window_s\": %.6f, "
            "\"wait_s\": %.6f, \"read_backs\": %llu},\n", r->host.plan_s, r->host.enqueue_s,
            r->host.end_window_s, r->host.wait_s, (unsigned long long)r->host.read_backs);
    fprintf(out, "  \"scenario\": ");
    json_print_string(out, r->scenario_path);
    fprintf(out, ",\n  \"version\": ");
    json_print_string(out, CLNETSIM_VERSION);
    fprintf(out, ",\n  \"commit\": ");
    json_print_string(out, CLNETSIM_GIT_COMMIT);
    if (r->interrupted) { /* docs/when-things-go-wrong.md, "Stopping a run" */
        fprintf(out, ",\n  \"reached_ns\": %lld,\n  \"stopped_by\": \"%s\"",
                (long long)r->reached_ns, results_signal_name(r->stop_signal));
    }
    if (r->resumed)
        fprintf(out, ",\n  \"resumed_from_ns\": %lld", (long long)r->resumed_from_ns);
    if (r->checkpoints > 0)
        fprintf(out, ",\n  \"checkpoints\": %lld", (long long)r->checkpoints);
    fprintf(out, ",\n  \"complete\": %s", r->interrupted ? "false" : "true");
}

/* An output written directly where it is (no temporary file, no rename): the descriptor of
 * /dev/stdout and the like, a character device, or a FIFO that a process reads. */
static int open_in_place(json_output *o, const char *path, int fd_name, mode_t mode,
                         cn_error *err)
{
    int fd;
    if (fd_name >= 0) {
        if (fd_name == STDOUT_FILENO)
            fflush(stdout); /* what was printed before comes first */
        fd = dup(fd_name);
    } else {
        /* a FIFO without a reader would block open(): refused instead (ENXIO) */
        fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISFIFO(mode) ? O_NONBLOCK : 0));
    }
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO && S_ISFIFO(mode))
            return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': no process reads the "
                           "FIFO", o->what, path);
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", o->what, path,
                       strerror(e));
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
        !(o->file = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", o->what, path,
                       strerror(e));
    }
    o->in_place = 1;
    return 0;
}

static int open_output(json_output *o, const char *path, const char *what, int regular_only,
                       cn_error *err)
{
    memset(o, 0, sizeof *o);
    snprintf(o->what, sizeof o->what, "%s", what);
    if (strlen(path) >= sizeof o->path)
        return cn_fail(err, CN_ERR_INPUT, "%s path '%.64s...' is too long", what, path);
    snprintf(o->path, sizeof o->path, "%s", path);
    int fd_name = file_fd_name(path);
    struct stat st;
    int exists = fd_name < 0 && stat(path, &st) == 0;
    if (fd_name >= 0 || (exists && !S_ISREG(st.st_mode))) {
        mode_t mode = fd_name >= 0 ? S_IFCHR : st.st_mode;
        if (exists && S_ISDIR(mode))
            return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", what, path,
                           strerror(EISDIR));
        if (regular_only || !(fd_name >= 0 || S_ISCHR(mode) || S_ISFIFO(mode)))
            return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': it is %s, not a "
                           "regular file", what, path,
                           fd_name >= 0 ? "a file descriptor" : file_kind_name(mode));
        return open_in_place(o, path, fd_name, mode, err);
    }
    /* a regular file, or a new one: written beside its real target, which the rename replaces
     * (a symbolic link stays one) */
    int e = file_real_target(path, o->target, sizeof o->target);
    if (e)
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", what, path,
                       strerror(e));
    snprintf(o->tmp_path, sizeof o->tmp_path, "%s.tmp.XXXXXX", o->target);
    int fd = mkstemp(o->tmp_path);
    if (fd < 0)
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", what, path,
                       strerror(errno));
    /* mkstemp makes the file 0600; the result gets the permissions any new file would */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        e = errno;
        close(fd);
        unlink(o->tmp_path);
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", what, path,
                       strerror(e));
    }
    o->file = fdopen(fd, "w");
    if (!o->file) {
        e = errno;
        close(fd);
        unlink(o->tmp_path);
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", what, path,
                       strerror(e));
    }
    return 0;
}

int output_file_open(json_output *o, const char *path, const char *what, cn_error *err)
{
    return open_output(o, path, what, 0, err);
}

int output_file_open_regular(json_output *o, const char *path, const char *what,
                             cn_error *err)
{
    return open_output(o, path, what, 1, err);
}

int json_output_open(json_output *o, const char *path, cn_error *err)
{
    return output_file_open(o, path, "JSON output", err);
}

void json_output_abort(json_output *o)
{
    if (o->file) {
        fclose(o->file);
        o->file = NULL;
        if (!o->in_place)
            unlink(o->tmp_path);
    } else if (o->finished) {
        unlink(o->tmp_path);
    }
    o->finished = 0;
}

/* errno after a failed write: stdio keeps the first error's errno only until the next call,
 * so the writer records it (EFBIG under a file-size limit, ENOSPC on a full disk). */
static int write_errno(FILE *f)
{
    return ferror(f) && errno ? errno : EIO;
}

int output_file_finish(json_output *o, cn_error *err)
{
    if (!o->file)
        return 0;
    errno = 0;
    int failed = fflush(o->file) != 0 || ferror(o->file);
    int e = failed ? write_errno(o->file) : 0;
    if (!failed && !o->in_place && fsync(fileno(o->file)) != 0) {
        failed = 1;
        e = errno;
    }
    if (fclose(o->file) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    o->file = NULL;
    if (failed) {
        if (!o->in_place)
            unlink(o->tmp_path);
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", o->what, o->path,
                       strerror(e));
    }
    o->finished = !o->in_place; /* in place: nothing left to rename */
    return 0;
}

int output_file_publish(json_output *o, cn_error *err)
{
    if (!o->finished)
        return 0;
    o->finished = 0;
    if (rename(o->tmp_path, o->target) != 0) {
        int e = errno;
        unlink(o->tmp_path);
        return cn_fail(err, CN_ERR_INPUT, "cannot write the %s '%s': %s", o->what, o->path,
                       strerror(e));
    }
    return 0;
}

int output_file_commit(json_output *o, cn_error *err)
{
    int rc = output_file_finish(o, err);
    return rc ? rc : output_file_publish(o, err);
}

int report_print_records(run_results *r, FILE *out)
{
    return record_table_write_csv(&r->records, out);
}

void results_free_records(run_results *r)
{
    record_table_free(&r->records);
}
