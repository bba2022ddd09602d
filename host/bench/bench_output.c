/* Bench results for people (a table per case) and for programs (JSON, CSV). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "version.h"
#include "bench/bench.h"

void bench_print_case(const bench_case *c, FILE *out)
{
    const bench_row *ok = NULL;
    for (int i = 0; i < c->n_rows && !ok; i++)
        if (!c->rows[i].failed)
            ok = &c->rows[i];
    if (c->population > 0)
        fprintf(out, "\n%s: %lld LPs, %lld events each at the start", c->name,
                (long long)c->nodes, (long long)c->population);
    else
        fprintf(out, "\n%s: %lld nodes", c->name, (long long)c->nodes);
    if (ok)
        fprintf(out, ", %llu events, %d timed runs per device", (unsigned long long)ok->events,
                ok->n_runs);
    fprintf(out, "\n");
    for (int i = 0; i < c->n_overrides; i++)
        fprintf(out, "%s-s %s", i ? " " : "  sized with ", c->overrides[i]);
    if (c->n_overrides)
        fprintf(out, "\n");
    /* PHOLD: the device memory per LP and per pending event (the population stays pending
     * all along: every executed event creates one), the model's scaling in memory */
    int mem = c->population > 0;
    fprintf(out, "  %3s  %-32s %-4s %10s  %-21s %10s %9s  ", "dev", "device", "type",
            "median s", "min-max s", "events/s", "speed-up");
    if (mem)
        fprintf(out, "%8s %8s  ", "B/LP", "B/event");
    fprintf(out, "%s\n", "work-group sizes");
    for (int i = 0; i < c->n_rows; i++) {
        const bench_row *r = &c->rows[i];
        if (r->failed) {
            fprintf(out, "  %3d  %-32.32s %-4s failed: %s\n", r->index, r->name, r->type,
                    r->error);
            continue;
        }
        char range[64];
        snprintf(range, sizeof range, "%.4f-%.4f", r->min_s, r->max_s);
        fprintf(out, "  %3d  %-32.32s %-4s %10.4f  %-21s %10.3g %8.2fx  ", r->index, r->name,
                r->type, r->median_s, range, r->events_per_s, r->speedup);
        if (mem)
            fprintf(out, "%8.1f %8.2f  ", bench_bytes_per_lp(c, r), bench_bytes_per_event(c, r));
        fprintf(out, "%s\n", r->work_groups);
    }
    /* the time of a window against the device's floor: what is left above it is the
     * model's work and its own launches */
    for (int i = 0; i < c->n_rows; i++) {
        const bench_row *r = &c->rows[i];
        if (r->failed)
            continue;
        fprintf(out, "  %3d  ", r->index);
        if (r->windows > 0)
            fprintf(out, "%lld windows, %.1f us each; ", (long long)r->windows, r->per_window_us);
        fprintf(out, "an empty window %.1f us (its launch %.1f us)\n", r->floor.window_us,
                r->floor.launch_us);
    }
    if (c->agree)
        fprintf(out, "  determinism contract: identical on every device and run\n");
    else
        fprintf(out, "  determinism contract: MISMATCH, %s\n", c->mismatch);
}

static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, cap, "%s", colon);
        break;
    }
    fclose(f);
}

double bench_bytes_per_lp(const bench_case *c, const bench_row *r)
{
    return c->nodes > 0 ? (double)r->device_bytes / (double)c->nodes : 0;
}

double bench_bytes_per_event(const bench_case *c, const bench_row *r)
{
    double pending = (double)c->nodes * (double)c->population;
    return pending > 0 ? (double)r->device_bytes / pending : 0;
}

/* A run's contract members: model, seed and the declared ones present, in order. */
static void print_contract(FILE *f, const run_results *r)
{
    fprintf(f, "{\"model\": ");
    json_print_string(f, r->model);
    fprintf(f, ", \"seed\": %llu", (unsigned long long)r->seed);
    for (int i = 0; i < r->n_metrics; i++) {
        if (!r->metrics[i].set || !results_metric(r, i)->contract)
            continue;
        char v[RESULTS_VALUE_CAP];
        if (results_value_text(r, i, v, sizeof v) == 0)
            fprintf(f, ", \"%s\": %s", r->metrics[i].name, v);
    }
    fputc('}', f);
}

static void print_row_json(FILE *f, const bench_case *c, const bench_row *r)
{
    fprintf(f, "{\"index\": %d, \"name\": ", r->index);
    json_print_string(f, r->name);
    fprintf(f, ", \"platform\": ");
    json_print_string(f, r->platform);
    fprintf(f, ", \"type\": ");
    json_print_string(f, r->type);
    if (r->failed) {
        fprintf(f, ", \"failed\": true, \"error\": ");
        json_print_string(f, r->error);
        fprintf(f, "}");
        return;
    }
    fprintf(f, ", \"failed\": false, \"median_s\": %.6f, \"min_s\": %.6f, \"max_s\": %.6f, "
            "\"runs\": [", r->median_s, r->min_s, r->max_s);
    for (int k = 0; k < r->n_runs; k++)
        fprintf(f, "%s%.6f", k ? ", " : "", r->runs[k]);
    fprintf(f, "], \"setup_s\": %.6f, \"events\": %llu, \"events_per_s\": %.1f, "
            "\"speedup\": %.4f, \"work_groups\": ", r->setup_s, (unsigned long long)r->events,
            r->events_per_s, r->speedup);
    json_print_string(f, r->work_groups);
    fprintf(f, ", \"device_bytes\": %llu", (unsigned long long)r->device_bytes);
    if (c->population > 0)
        fprintf(f, ", \"device_bytes_per_lp\": %.3f, \"device_bytes_per_event\": %.3f",
                bench_bytes_per_lp(c, r), bench_bytes_per_event(c, r));
    fprintf(f, ", \"window_count\": %lld, \"per_window_us\": %.3f, \"floor_window_us\": %.3f, "
            "\"floor_launch_us\": %.3f", (long long)r->windows, r->per_window_us,
            r->floor.window_us, r->floor.launch_us);
    fprintf(f, ", \"contract\": ");
    print_contract(f, &r->first);
    fprintf(f, "}");
}

void bench_print_json(FILE *f, const bench_case *cases, int n_cases, const bench_options *opt)
{
    char host[256] = "unknown", cpu[256], date[64] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "{\n  \"clnetsim_bench\": 1,\n  \"version\": ");
    json_print_string(f, CLNETSIM_VERSION);
    fprintf(f, ",\n  \"commit\": ");
    json_print_string(f, CLNETSIM_GIT_COMMIT);
    fprintf(f, ",\n  \"date\": ");
    json_print_string(f, date);
    fprintf(f, ",\n  \"host\": ");
    json_print_string(f, host);
    fprintf(f, ",\n  \"cpu\": ");
    json_print_string(f, cpu);
    fprintf(f, ",\n  \"warmup\": %d,\n  \"repeat\": %d,\n  \"set\": [", opt->warmup,
            opt->repeat);
    for (int i = 0; i < opt->n_set; i++) { /* -s overrides of every case: part of what ran */
        fprintf(f, "%s", i ? ", " : "");
        json_print_string(f, opt->set[i]);
    }
    fprintf(f, "],\n  \"timing\": ");
    json_print_string(f, "simulation wall time of each run (wall_s of `clnetsim run`): windows "
                         "to final counters, after device set-up");
    fprintf(f, ",\n  \"cases\": [");
    for (int i = 0; i < n_cases; i++) {
        const bench_case *c = &cases[i];
        fprintf(f, "%s\n    {\"scenario\": ", i ? "," : "");
        json_print_string(f, c->name);
        fprintf(f, ", \"path\": ");
        json_print_string(f, c->path);
        fprintf(f, ", \"nodes\": %lld, ", (long long)c->nodes);
        if (c->population > 0)
            fprintf(f, "\"lps\": %lld, \"population\": %lld, ", (long long)c->nodes,
                    (long long)c->population);
        fprintf(f, "\"overrides\": [");
        for (int k = 0; k < c->n_overrides; k++) {
            fprintf(f, "%s", k ? ", " : "");
            json_print_string(f, c->overrides[k]);
        }
        fprintf(f, "], \"agree\": %s", c->agree ? "true" : "false");
        if (!c->agree) {
            fprintf(f, ", \"mismatch\": ");
            json_print_string(f, c->mismatch);
        }
        fprintf(f, ",\n     \"devices\": [");
        for (int d = 0; d < c->n_rows; d++) {
            fprintf(f, "%s\n      ", d ? "," : "");
            print_row_json(f, c, &c->rows[d]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

void bench_print_csv(FILE *f, const bench_case *cases, int n_cases)
{
    fprintf(f, "scenario,nodes,device_index,device,platform,type,runs,median_s,min_s,max_s,"
               "events,events_per_s,speedup,work_groups,agree,error,device_bytes,"
               "device_bytes_per_lp,device_bytes_per_event,window_count,per_window_us,"
               "floor_window_us,floor_launch_us\n");
    for (int i = 0; i < n_cases; i++) {
        const bench_case *c = &cases[i];
        for (int d = 0; d < c->n_rows; d++) {
            const bench_row *r = &c->rows[d];
            csv_print_field(f, c->name);
            fprintf(f, ",%lld,%d,", (long long)c->nodes, r->index);
            csv_print_field(f, r->name);
            fputc(',', f);
            csv_print_field(f, r->platform);
            fprintf(f, ",%s,", r->type);
            if (r->failed) {
                fprintf(f, "0,,,,,,,,%d,", c->agree);
            } else {
                fprintf(f, "%d,%.6f,%.6f,%.6f,%llu,%.1f,%.4f,", r->n_runs, r->median_s,
                        r->min_s, r->max_s, (unsigned long long)r->events, r->events_per_s,
                        r->speedup);
                csv_print_field(f, r->work_groups);
                fprintf(f, ",%d,", c->agree);
            }
            csv_print_field(f, r->failed ? r->error : "");
            /* memory: after the older columns, so that readers by position keep working */
            if (r->failed)
                fprintf(f, ",,,,,,,\n");
            else if (c->population > 0)
                fprintf(f, ",%llu,%.3f,%.3f", (unsigned long long)r->device_bytes,
                        bench_bytes_per_lp(c, r), bench_bytes_per_event(c, r));
            else
                fprintf(f, ",%llu,,", (unsigned long long)r->device_bytes);
            /* the windows and the device's floor: after the memory, for the same reason */
            if (!r->failed)
                fprintf(f, ",%lld,%.3f,%.3f,%.3f\n", (long long)r->windows, r->per_window_us,
                        r->floor.window_us, r->floor.launch_us);
        }
    }
}
