/* clnetsim-ns3: the flood model of docs/model.md as an ns-3 program, for validation and comparison.
 *
 * usage: clnetsim-ns3 FILE.ini [-s SECTION.KEY=VALUE ...] [--json OUT.json]
 *                     [--scheduler map|heap|list|calendar|priority]
 *
 * Every node is an ns3::Node with one FloodApplication. The run is driven by ns-3's own
 * scheduler (Simulator::Run), with one event per transmission and one per reception:
 *   - a transmission event at node i counts itself and schedules, for every neighbour j, a
 *     reception event at the same time in j's context (as an ns-3 channel delivers to the
 *     devices attached to it);
 *   - a reception event counts itself; on a first reception it records delivery at the
 *     destination and, unless the relay decision or the TTL says otherwise, schedules the
 *     relay's transmission relay_delay later.
 * Events carry plain integers (packet, hop count), not ns3::Packet objects: this is the
 * cheapest way ns-3 can express the model, so a speed ratio measured against it is a lower
 * bound on the ratio against a model built from ns-3's packets and net devices.
 *
 * What is shared with clnetsim and what is not: the scenario is read by clnetsim's own
 * configuration layer (the same keys, units, exact decimal conversions and error messages),
 * and the relay decisions use the host Philox4x32-10, which the test suite checks against the
 * known answers of docs/model.md. Placement, neighbour search, event handling and the counters are
 * written here, from docs/model.md, and share no code with clnetsim's engine or its oracle.
 *
 * Scope: static scenarios (mobility.model = static), grid or uniform placement, udg.
 * Exit status: 0 success, 1 runtime failure, 2 bad input. */
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "ns3/application.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/version-defines.h"

extern "C" {
#include "common/philox.h"
#include "config/config.h"
#include "models/flood/flood_values.h"
}

namespace {

// A 128-bit sum in decimal (JSON numbers of any size are valid).
std::string decimal(__int128 v)
{
    unsigned __int128 mag = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    std::string s;
    do {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(mag % 10u)));
        mag /= 10u;
    } while (mag > 0);
    return v < 0 ? "-" + s : s;
}

const int kMaxOverrides = 256;

/* ------------------------------------------------------------------ the model's state */

/* The determinism-contract counters of docs/model.md "Outputs" (loss is derived when writing). */
struct Counters {
    int64_t delivered = 0;
    int64_t transmissions = 0;
    int64_t receptions = 0;
    int64_t first_receptions = 0;
    __int128 hops_sum = 0;       // 128 bits, as clnetsim's: these sums can pass 2^63
    __int128 latency_sum_ns = 0;
    int64_t end_time_ns = 0;
    bool executed = false;
};

class FloodApplication;

/* What every node's application reads: the scenario, the neighbour lists (CSR), the
 * applications of all nodes (to deliver receptions) and the shared counters. */
struct FloodWorld {
    const scenario *sc = nullptr;
    std::vector<int64_t> nb_offset; /* neighbours of i: nb_list[nb_offset[i] .. nb_offset[i+1]) */
    std::vector<uint32_t> nb_list;
    std::vector<ns3::Ptr<FloodApplication>> apps;
    Counters counters;
    int64_t test_skew = 0; /* CLNETSIM_NS3_TEST_SKEW: added to receptions, to test the checker */
};

/* One node's flood logic. A node remembers which packets it has seen (one bit per packet). */
class FloodApplication : public ns3::Application {
  public:
    FloodApplication(FloodWorld *world, uint32_t id, uint64_t packets)
        : m_world(world), m_id(id), m_seen(packets, false)
    {
    }

    /* Packet k leaves the source (an event at t_k in the source's context); the next packet's
     * creation is scheduled from here so that the queue never holds all P creations at once. */
    void Originate(uint32_t k)
    {
        const scenario *scn = m_world->sc;
        const flood_values *sc = flood_values_of(scn);
        Transmit(k, 1);
        const int64_t next = (int64_t)k + 1;
        if (next < sc->packets) {
            const int64_t t_next = sc->start_ns + next * sc->interval_ns;
            if (scn->duration_ns == 0 || t_next < scn->duration_ns)
                ns3::Simulator::Schedule(ns3::NanoSeconds(t_next) - ns3::Simulator::Now(),
                                         &FloodApplication::Originate, this, (uint32_t)next);
        }
    }

    /* This node transmits packet k with hop count HOP: every neighbour receives it now. */
    void Transmit(uint32_t k, uint32_t hop)
    {
        Counters &c = m_world->counters;
        c.transmissions++;
        c.end_time_ns = ns3::Simulator::Now().GetNanoSeconds();
        c.executed = true;
        const int64_t begin = m_world->nb_offset[m_id], end = m_world->nb_offset[m_id + 1];
        for (int64_t a = begin; a < end; a++) {
            const uint32_t j = m_world->nb_list[(size_t)a];
            ns3::Simulator::ScheduleWithContext(j, ns3::Time(0), &FloodApplication::Receive,
                                                m_world->apps[j], k, hop);
        }
    }

    /* This node hears packet k with hop count HOP (docs/model.md "Traffic and flooding"). */
    void Receive(uint32_t k, uint32_t hop)
    {
        const scenario *scn = m_world->sc;
        const flood_values *sc = flood_values_of(scn);
        Counters &c = m_world->counters;
        c.receptions++;
        /* Every packet is the source's own, and the source counts its packets as seen. */
        if ((int64_t)m_id == sc->source || m_seen[k])
            return;
        m_seen[k] = true;
        c.first_receptions++;
        const int64_t now = ns3::Simulator::Now().GetNanoSeconds();
        if ((int64_t)m_id == sc->destination) {
            c.delivered++;
            c.latency_sum_ns += now - (sc->start_ns + (int64_t)k * sc->interval_ns);
            c.hops_sum += hop;
        }
        const philox4x32 w = philox_draw(scn->seed, m_id, k, STREAM_RELAY);
        if ((uint64_t)w.v[0] < sc->drop_threshold)
            return; /* the relay decision says drop */
        if (sc->ttl > 0 && (int64_t)hop >= sc->ttl)
            return;
        if (scn->duration_ns > 0 && now + sc->relay_delay_ns >= scn->duration_ns)
            return; /* would fall at or after the end of the run: never executed */
        ns3::Simulator::Schedule(ns3::NanoSeconds(sc->relay_delay_ns), &FloodApplication::Transmit,
                                 this, k, hop + 1);
    }

  private:
    void StartApplication() override {}
    void StopApplication() override {}

    FloodWorld *m_world;
    uint32_t m_id;
    std::vector<bool> m_seen;
};

/* ------------------------------------------------------------- placement, neighbours */

struct Pos {
    int64_t x, y, z;
};

/* Initial positions in mm (docs/model.md "Nodes and placement"). */
std::vector<Pos> place_nodes(const scenario *scn, int64_t n)
{
    const flood_values *sc = flood_values_of(scn);
    std::vector<Pos> pos((size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (sc->placement == PLACEMENT_GRID) {
            pos[(size_t)i] = {(i % sc->cols) * sc->spacing_mm, (i / sc->cols) * sc->spacing_mm, 0};
        } else {
            const philox4x32 w = philox_draw(scn->seed, (uint32_t)i, 0, STREAM_PLACEMENT);
            pos[(size_t)i] = {(int64_t)philox_uniform(w.v[0], (uint64_t)sc->width_mm),
                              (int64_t)philox_uniform(w.v[1], (uint64_t)sc->height_mm),
                              (int64_t)philox_uniform(w.v[2], (uint64_t)sc->depth_mm)};
        }
    }
    return pos;
}

/* Squared distance; coordinates are below 2^31 mm, so three squares fit in 64 unsigned bits. */
uint64_t dist2(const Pos &a, const Pos &b)
{
    const uint64_t dx = (uint64_t)std::llabs(a.x - b.x), dy = (uint64_t)std::llabs(a.y - b.y),
                   dz = (uint64_t)std::llabs(a.z - b.z);
    return dx * dx + dy * dy + dz * dz;
}

/* udg neighbour lists (CSR) through a uniform cell grid: cells of side >= range, so that
 * neighbours are in the 27 cells around a node's own; the side doubles while there would be
 * more cells than 4 per node (sparse, huge areas). */
void build_neighbours(const std::vector<Pos> &pos, int64_t range_mm, FloodWorld *world)
{
    const size_t n = pos.size();
    Pos hi = {0, 0, 0};
    for (const Pos &p : pos)
        hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    int64_t side = std::max<int64_t>(range_mm, 1), cx, cy, cz;
    for (;;) {
        cx = hi.x / side + 1;
        cy = hi.y / side + 1;
        cz = hi.z / side + 1;
        if ((double)cx * (double)cy * (double)cz <= 4.0 * (double)n + 64.0)
            break;
        side *= 2;
    }
    auto cell_of = [&](const Pos &p) { return (p.z / side * cy + p.y / side) * cx + p.x / side; };
    const size_t ncells = (size_t)(cx * cy * cz);
    std::vector<int64_t> cell_start(ncells + 1, 0);
    std::vector<uint32_t> by_cell(n);
    for (const Pos &p : pos)
        cell_start[(size_t)cell_of(p) + 1]++;
    for (size_t c = 0; c < ncells; c++)
        cell_start[c + 1] += cell_start[c];
    {
        std::vector<int64_t> fill(cell_start.begin(), cell_start.end() - 1);
        for (size_t i = 0; i < n; i++)
            by_cell[(size_t)fill[(size_t)cell_of(pos[i])]++] = (uint32_t)i;
    }
    const uint64_t r2 = (uint64_t)range_mm * (uint64_t)range_mm;
    world->nb_offset.assign(n + 1, 0);
    world->nb_list.clear();
    for (size_t i = 0; i < n; i++) {
        const Pos &p = pos[i];
        const int64_t px = p.x / side, py = p.y / side, pz = p.z / side;
        for (int64_t z = std::max<int64_t>(pz - 1, 0); z <= std::min(pz + 1, cz - 1); z++)
            for (int64_t y = std::max<int64_t>(py - 1, 0); y <= std::min(py + 1, cy - 1); y++)
                for (int64_t x = std::max<int64_t>(px - 1, 0); x <= std::min(px + 1, cx - 1); x++) {
                    const size_t c = (size_t)((z * cy + y) * cx + x);
                    for (int64_t a = cell_start[c]; a < cell_start[c + 1]; a++) {
                        const uint32_t j = by_cell[(size_t)a];
                        if (j != i && dist2(p, pos[j]) <= r2)
                            world->nb_list.push_back(j);
                    }
                }
        world->nb_offset[i + 1] = (int64_t)world->nb_list.size();
    }
}

/* ------------------------------------------------------------------------- output */

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/* Writes the result object through a temporary file renamed into place, so that a failed
 * write never leaves a half-written PATH. Returns false with a message on stderr. */
bool write_json(const char *path, const scenario *scn, const Counters &c, int64_t nodes,
                double setup_s, double wall_s, const std::string &scheduler)
{
    const flood_values *sc = flood_values_of(scn);
    std::string tmp = std::string(path) + ".tmp.XXXXXX";
    std::vector<char> name(tmp.begin(), tmp.end());
    name.push_back('\0');
    const int fd = mkstemp(name.data());
    FILE *out = fd >= 0 ? fdopen(fd, "w") : nullptr;
    if (!out) {
        std::fprintf(stderr, "clnetsim-ns3: cannot write %s: %s\n", path, std::strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(name.data());
        }
        return false;
    }
    const int64_t windows = c.executed ? c.end_time_ns / sc->relay_delay_ns + 1 : 0;
    const double loss =
        sc->packets > 0 ? 1.0 - (double)c.delivered / (double)sc->packets : 0.0;
    const double events = (double)c.transmissions + (double)c.receptions;
    std::fprintf(out, "{\n");
    std::fprintf(out, "  \"model\": \"%s\",\n", scn->model);
    std::fprintf(out, "  \"seed\": %" PRIu64 ",\n", scn->seed);
    std::fprintf(out, "  \"nodes\": %" PRId64 ",\n", nodes);
    std::fprintf(out, "  \"generated\": %" PRId64 ",\n", sc->packets);
    std::fprintf(out, "  \"delivered\": %" PRId64 ",\n", c.delivered);
    std::fprintf(out, "  \"loss\": %.17g,\n", loss);
    std::fprintf(out, "  \"transmissions\": %" PRId64 ",\n", c.transmissions);
    std::fprintf(out, "  \"receptions\": %" PRId64 ",\n", c.receptions);
    std::fprintf(out, "  \"first_receptions\": %" PRId64 ",\n", c.first_receptions);
    std::fprintf(out, "  \"hops_sum\": %s,\n", decimal(c.hops_sum).c_str());
    std::fprintf(out, "  \"latency_sum_ns\": %s,\n", decimal(c.latency_sum_ns).c_str());
    std::fprintf(out, "  \"end_time_ns\": %" PRId64 ",\n", c.end_time_ns);
    std::fprintf(out, "  \"windows\": %" PRId64 ",\n", windows);
    std::fprintf(out, "  \"wall_s\": %.6f,\n", wall_s);
    std::fprintf(out, "  \"events_per_s\": %.1f,\n", wall_s > 0 ? events / wall_s : 0.0);
    std::fprintf(out, "  \"setup_s\": %.6f,\n", setup_s);
    std::fprintf(out, "  \"simulator\": \"ns-3.%d\",\n", NS3_VERSION_MINOR);
    std::fprintf(out, "  \"scheduler\": \"%s\",\n", scheduler.c_str());
    std::fprintf(out, "  \"scenario\": \"%s\",\n", scn->path);
    std::fprintf(out, "  \"complete\": true\n");
    std::fprintf(out, "}\n");
    const bool ok = std::fflush(out) == 0 && fsync(fileno(out)) == 0 && !std::ferror(out);
    const bool closed = std::fclose(out) == 0;
    if (!ok || !closed || std::rename(name.data(), path) != 0) {
        std::fprintf(stderr, "clnetsim-ns3: cannot write %s: %s\n", path, std::strerror(errno));
        unlink(name.data());
        return false;
    }
    return true;
}

/* --------------------------------------------------------------------- command line */

void usage(FILE *out)
{
    std::fprintf(out,
                 "usage: clnetsim-ns3 FILE.ini [-s SECTION.KEY=VALUE ...] [--json OUT.json]\n"
                 "                    [--scheduler map|heap|list|calendar|priority]\n"
                 "\n"
                 "Runs the flood model of FILE.ini (static scenarios only) with ns-3's\n"
                 "scheduler, one event per transmission and per reception, and prints the\n"
                 "counters; --json writes them in clnetsim's result format (atomically).\n"
                 "The scheduler defaults to ns-3's default (map).\n"
                 "\n"
                 "Exit status: 0 success, 1 runtime failure, 2 bad input.\n");
}

int input_error(const char *what, const char *arg)
{
    std::fprintf(stderr, "clnetsim-ns3: ");
    std::fprintf(stderr, what, arg);
    std::fprintf(stderr, " (see clnetsim-ns3 --help)\n");
    return CN_ERR_INPUT;
}

struct SchedulerName {
    const char *option, *type_id;
};
const SchedulerName kSchedulers[] = {
    {"map", "ns3::MapScheduler"},         {"heap", "ns3::HeapScheduler"},
    {"list", "ns3::ListScheduler"},       {"calendar", "ns3::CalendarScheduler"},
    {"priority", "ns3::PriorityQueueScheduler"},
};

} // namespace

int main(int argc, char **argv)
{
    const char *file = nullptr, *json = nullptr, *sched = "map";
    config_override overrides[kMaxOverrides] = {}; // every member a null pointer: -s arguments
    int n_overrides = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!std::strcmp(a, "-s") || !std::strcmp(a, "--set")) {
            if (i + 1 >= argc)
                return input_error("%s needs SECTION.KEY=VALUE", a);
            if (n_overrides == kMaxOverrides)
                return input_error("more than %s overrides", "256");
            overrides[n_overrides++].text = argv[++i];
        } else if (!std::strcmp(a, "--json")) {
            if (i + 1 >= argc)
                return input_error("%s needs a file name", a);
            json = argv[++i];
        } else if (!std::strcmp(a, "--scheduler")) {
            if (i + 1 >= argc)
                return input_error("%s needs map, heap, list, calendar or priority", a);
            sched = argv[++i];
        } else if (a[0] == '-') {
            return input_error("unknown option '%s'", a);
        } else if (file) {
            return input_error("more than one scenario file ('%s')", a);
        } else {
            file = a;
        }
    }
    if (!file)
        return input_error("%s", "no scenario file given");
    const SchedulerName *scheduler = nullptr;
    for (const SchedulerName &s : kSchedulers)
        if (!std::strcmp(s.option, sched))
            scheduler = &s;
    if (!scheduler)
        return input_error("unknown scheduler '%s': use map, heap, list, calendar or priority",
                           sched);

    static scenario sc; /* several KiB (mobility groups): static keeps it off the stack */
    cn_error err;
    cn_error_clear(&err);
    if (config_load(file, overrides, n_overrides, &sc, &err) != CN_OK) {
        std::fprintf(stderr, "clnetsim-ns3: %s\n", err.msg);
        return CN_ERR_INPUT;
    }
    const flood_values *fv = flood_values_of(&sc);
    if (std::strcmp(sc.model, "flood") != 0 || flood_is_mobile(fv) ||
        fv->connectivity != CONNECTIVITY_UDG || fv->max_neighbors > 0 ||
        fv->drop.law != LAW_CONSTANT || fv->n_flows > 0 || fv->scheme != SCHEME_PROBABILISTIC ||
        flood_has_resources(fv)) {
        std::fprintf(stderr,
                     "clnetsim-ns3: %s: the ns-3 flood program covers static udg flood scenarios "
                     "only (every node static: mobility.model = static and no moving group; "
                     "no max_neighbors, a constant drop_probability, no [traffic.flow] "
                     "sections, flood.scheme = probabilistic, no resources.rx_capacity or "
                     "resources.energy_budget)\n",
                     file);
        return CN_ERR_INPUT;
    }
    /* activity areas' links between areas are no distance test: this program builds its
     * graph from positions alone */
    if (fv->placement == PLACEMENT_AREAS) {
        std::fprintf(stderr,
                     "clnetsim-ns3: %s: topology.placement = areas is not covered by the ns-3 "
                     "flood program (grid and uniform placement only)\n",
                     file);
        return CN_ERR_INPUT;
    }
    const int64_t n = flood_node_count(fv);
    if (n > (int64_t)UINT32_MAX || fv->packets > (int64_t)UINT32_MAX) {
        std::fprintf(stderr, "clnetsim-ns3: %s: more than 2^32 nodes or packets\n", file);
        return CN_ERR_INPUT;
    }
    if (json) { /* checked before the run, which may be long */
        std::string dir(json);
        const size_t slash = dir.find_last_of('/');
        dir = slash == std::string::npos ? "." : slash == 0 ? "/" : dir.substr(0, slash);
        if (access(dir.c_str(), W_OK | X_OK) != 0 || (access(json, F_OK) == 0 && access(json, W_OK) != 0)) {
            std::fprintf(stderr, "clnetsim-ns3: cannot write %s: %s\n", json, std::strerror(errno));
            return CN_ERR_INPUT;
        }
    }

    const auto t_setup = std::chrono::steady_clock::now();
    ns3::ObjectFactory factory;
    factory.SetTypeId(scheduler->type_id);
    ns3::Simulator::SetScheduler(factory);

    FloodWorld world;
    world.sc = &sc;
    if (const char *skew = std::getenv("CLNETSIM_NS3_TEST_SKEW"))
        world.test_skew = std::atoll(skew);
    build_neighbours(place_nodes(&sc, n), fv->range_mm, &world);
    ns3::NodeContainer nodes;
    nodes.Create((uint32_t)n);
    world.apps.reserve((size_t)n);
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        ns3::Ptr<FloodApplication> app =
            ns3::CreateObject<FloodApplication>(&world, i, (uint64_t)fv->packets);
        nodes.Get(i)->AddApplication(app);
        world.apps.push_back(app);
    }
    if (fv->packets > 0 && (sc.duration_ns == 0 || fv->start_ns < sc.duration_ns))
        ns3::Simulator::ScheduleWithContext((uint32_t)fv->source, ns3::NanoSeconds(fv->start_ns),
                                            &FloodApplication::Originate,
                                            world.apps[(size_t)fv->source], 0u);
    const double setup_s = seconds_since(t_setup);

    const auto t_run = std::chrono::steady_clock::now();
    ns3::Simulator::Run();
    const double wall_s = seconds_since(t_run);
    world.counters.receptions += world.test_skew;
    world.apps.clear();
    ns3::Simulator::Destroy();

    const Counters &c = world.counters;
    const double events = (double)c.transmissions + (double)c.receptions;
    std::printf("ns-3.%d %s: %" PRId64 " nodes, %" PRId64 " packets\n", NS3_VERSION_MINOR,
                scheduler->type_id, n, fv->packets);
    std::printf("delivered    %" PRId64 " of %" PRId64 "\n", c.delivered, fv->packets);
    std::printf("events       %" PRId64 " transmissions, %" PRId64 " receptions (%" PRId64
                " first)\n",
                c.transmissions, c.receptions, c.first_receptions);
    std::printf("time         %.3f s setup, %.3f s run, %.3g events/s\n", setup_s, wall_s,
                wall_s > 0 ? events / wall_s : 0.0);
    if (json && !write_json(json, &sc, c, n, setup_s, wall_s, scheduler->type_id))
        return CN_ERR_RUNTIME;
    return CN_OK;
}
