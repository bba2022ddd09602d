/* Adaptive granularity: as a run goes, the engine measures the events it runs per second of
 * wall time and moves a knob of the model (model_ops.knob: how its work is grouped, such as
 * the windows one launch runs) along a ladder of values, keeping the fastest. The knob never
 * changes results, only how fast they come (docs/architecture.md, "Adaptive granularity").
 *
 * The measurements live in the injector's feedback table (inject/inject.h): each rung of the
 * ladder is a kind, the run is its one device, and a period's events and seconds are a sample.
 *
 * First a ramp: while a step lasts less than GRAN_RAMP_S, the next one takes the value that
 * would make it last about that long (at most GRAN_RAMP_JUMP times larger): a fixed cost per
 * step (a launch, a read-back, the wait for a launch's slowest work-item) is then a small
 * share of each, and a short run is not spent climbing. A knob whose steps cost a fixed part
 * plus a part in proportion to the value (model_knob.proportional: windows per launch
 * where no work-item waits on another's) ramps further: its first step takes the rung
 * GRAN_RAMP_BELOW below the start (it mostly measures the fixed cost, which a short step
 * keeps cheap), and each next step the
 * largest rung that would last at most GRAN_PROPORTIONAL_STEP_S; predictions in proportion
 * hold there, where a cost per unit that grows with the value would make such a jump
 * overshoot.
 *
 * Then a hill climb that distrusts drift: the rung in force (A) is measured for a period,
 * then a neighbour (B) for one, then A again; B is taken only when its rate beats both of A's
 * by GRAN_MARGIN, so that a load that grows or shrinks while they are measured (a start's
 * transient) does not pass for a better rung. A taken step is followed by another in the same
 * direction at once, twice as far (at most GRAN_MAX_STRIDE rungs); a refused one turns to the
 * other side; once both sides were refused, the next probe waits twice as many periods as the
 * last (at most GRAN_MAX_WAIT), so that a settled run spends a small share of its time off its
 * best rung and still follows a load that changes. A value whose steps would last more than
 * GRAN_STEP_MAX_S (GRAN_PROPORTIONAL_STEP_S for a proportional knob) is not tried: a stop
 * signal, a checkpoint and the progress line wait for a step's end. Every decision depends
 * only on the measurements fed in: ranks fed the same (agreed)
 * measurements choose the same values. */
#ifndef CLNETSIM_GRANULARITY_H
#define CLNETSIM_GRANULARITY_H
#include <stdint.h>
#include <stdio.h>

#include "inject/inject.h"
#include "report/report.h"

#define GRAN_MAX_RUNGS REPORT_MAX_RUNGS
#define GRAN_MARGIN 0.03       /* B must beat A's rates by this share */
#define GRAN_PERIOD_S 0.002    /* a period lasts at least this long, and a step */
#define GRAN_MAX_WAIT 32       /* periods at most between probes of a settled run */
#define GRAN_HISTORY 4         /* samples kept per rung */
#define GRAN_RAMP_S 1.0        /* the ramp's aim for a step */
#define GRAN_RAMP_JUMP 1024    /* the ramp's largest factor from one step to the next */
#define GRAN_STEP_MAX_S 2.0    /* no value tried whose steps would last longer */
#define GRAN_PROPORTIONAL_STEP_S 4.0 /* the same for a proportional knob, and its ramp's aim */
#define GRAN_RAMP_BELOW 4      /* a proportional knob's first step: rungs below the start */
#define GRAN_MAX_STRIDE 8      /* rungs of the longest move */

typedef enum gran_phase {
    GRAN_FIXED = 0,   /* one value: nothing to choose */
    GRAN_RAMP,        /* steps shorter than GRAN_RAMP_S: the next one larger */
    GRAN_BASE,        /* measuring A */
    GRAN_PROBE,       /* measuring the neighbour B */
    GRAN_BACK,        /* measuring A again */
} gran_phase;

typedef struct granularity {
    gran_phase phase;
    int n_rungs;
    int64_t value[GRAN_MAX_RUNGS]; /* ascending: the start, and powers of two around it */
    int base;                 /* A's rung */
    int rung;                 /* the rung in force */
    int dir;                  /* the side the next probe takes: +1 up, -1 down */
    int stride;               /* rungs the next probe moves */
    double step_s;            /* the last step's seconds, at the rung in force then */
    int64_t step_value;       /* that rung's value */
    int proportional;         /* model_knob.proportional */
    double step_max_s;        /* the longest step a value is tried for */
    int refused;              /* probes refused since the last one taken */
    int wait, waited;         /* periods to hold before the next probe, and held so far */
    double rate_a;            /* A's rate before the probe */
    double rate_b;            /* B's */
    int rung_probed;          /* B's rung */
    /* the period under way */
    uint64_t events;
    double seconds;
    feedback_table table;     /* kinds: rungs; one device: the run */
    /* for the report */
    int64_t start;
    uint64_t periods, probes, moves, skipped;
} granularity;

/* A ladder from LO to HI (LO <= START <= HI): START, and START times and divided by the
 * powers of two within [LO, HI], with LO and HI themselves. LO == HI: the knob is fixed.
 * PROPORTIONAL: model_knob.proportional. Returns 0, or -1 when out of memory. */
int gran_init(granularity *g, int64_t lo, int64_t hi, int64_t start, int proportional);
void gran_free(granularity *g);
/* The value in force. */
static inline int64_t gran_value(const granularity *g) { return g->value[g->rung]; }
/* One step ran EVENTS events in SECONDS of wall time. Returns 1 when the value in force
 * changed (the caller sets it on the model before the next step), else 0. */
int gran_step(granularity *g, uint64_t events, double seconds);
/* A step left out (window_outcome.irregular): nothing learnt from it, counted. */
void gran_skip(granularity *g);
/* CLNETSIM_TEST_GRANULARITY=walk (tests): the value after STEP steps (0: the first step's)
 * is a rung of the ladder's lower half drawn from STEP alone, whatever was measured, so that
 * a short run takes many values (each change counted as a move). Returns 1 when the value
 * changed. */
int gran_test_walk(granularity *g, int64_t step);
/* The measured rate (events per second) of rung R over its kept samples; negative when it
 * has none. */
double gran_rate(const granularity *g, int r);

/* What G chose and measured, into REP (its knob named already). */
void gran_report(const granularity *g, granularity_report *rep);
/* --show-feedback: the knob's ladder, one line per value measured. Nothing when REP's model
 * has no knob. */
void gran_print(const granularity_report *rep, FILE *out);

#endif
