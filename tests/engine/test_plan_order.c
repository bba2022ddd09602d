/* The order of a window's sets against the kinds' declared reads and writes
 * (host/engine/plan_order.h): a plan in which a set reads a flow before a set of another kind
 * that writes it is refused with a sentence naming both sets and the flow; a kind's mask
 * naming a flow the model does not declare is refused; both models' declarations and the
 * orders they plan pass. No device. */
#include <stdio.h>
#include <string.h>

#include "../common/check.h"
#include "engine/engine.h"
#include "engine/plan_order.h"

#define CHECK_TEXT(got, want)                                                                  \
    check_at(__FILE__, __LINE__, strcmp((got), (want)) == 0, "'%s', expected '%s'", (got), (want))

/* A model shaped like the flood: positions, cells, seen. */
static const event_kind kinds[] = {
    {"move", 1u << 0, 1u << 0},
    {"bin", 1u << 0, 1u << 1},
    {"transmit", (1u << 0) | (1u << 1) | (1u << 2), 1u << 2},
};
static const char *const flows[] = {"positions", "cells", "seen"};
static const model_ops fake = {
    .name = "fake", .kinds = kinds, .n_kinds = 3, .flows = flows, .n_flows = 3};

static void plan_of(window_plan *plan, const int *k, const int *part, int n)
{
    plan->index = 12;
    plan->n_sets = n;
    for (int i = 0; i < n; i++)
        plan->sets[i] = (event_set){k[i], part[i], 10};
}

static void test_orders(void)
{
    static window_plan plan;
    plan_order order;
    cn_error err = {0};
    CHECK(plan_order_init(&order, &fake, &err) == 0);
    /* move, bin, then transmit sets of three partitions: writers before readers */
    const int good[] = {0, 1, 2, 2, 2}, parts[] = {0, 0, 0, 1, 2};
    plan_of(&plan, good, parts, 5);
    CHECK(plan_order_check(&order, &plan, &err) == 0);
    /* sets of one kind are free among themselves; an empty plan is fine */
    const int same[] = {2, 2, 2}, rev[] = {2, 1, 0};
    plan_of(&plan, same, rev, 3);
    CHECK(plan_order_check(&order, &plan, &err) == 0);
    plan_of(&plan, same, rev, 0);
    CHECK(plan_order_check(&order, &plan, &err) == 0);

    /* a transmit set before the bin set that writes the cell lists it reads */
    const int late_bin[] = {0, 2, 1, 2}, p4[] = {0, 0, 0, 1};
    plan_of(&plan, late_bin, p4, 4);
    CHECK(plan_order_check(&order, &plan, &err) == CN_ERR_RUNTIME);
    CHECK_TEXT(err.msg, "internal error: model 'fake' planned window 12 with set 2 (transmit, "
                        "partition 0), which reads the flow 'cells', before set 3 (bin, "
                        "partition 0), which writes it: a set must come after the sets of "
                        "other kinds that write what it reads");
    /* the move of another partition after everything that reads the positions */
    const int late_move[] = {0, 1, 2, 0}, p5[] = {0, 0, 0, 3};
    plan_of(&plan, late_move, p5, 4);
    cn_error e2 = {0};
    CHECK(plan_order_check(&order, &plan, &e2) == CN_ERR_RUNTIME);
    CHECK_TEXT(e2.msg, "internal error: model 'fake' planned window 12 with set 3 (transmit, "
                       "partition 0), which reads the flow 'positions', before set 4 (move, "
                       "partition 3), which writes it: a set must come after the sets of "
                       "other kinds that write what it reads");
    /* a kind the model does not declare */
    const int bad_kind[] = {0, 5}, p2[] = {0, 0};
    plan_of(&plan, bad_kind, p2, 2);
    cn_error e3 = {0};
    CHECK(plan_order_check(&order, &plan, &e3) == CN_ERR_RUNTIME);
    CHECK_TEXT(e3.msg, "internal error: model 'fake' planned window 12 with set 2 of kind 5, "
                       "which it does not declare");
}

static void test_declarations(void)
{
    plan_order order;
    /* a mask naming a fourth flow of a model with three */
    static const event_kind stray[] = {{"move", 1u << 0, 1u << 3}};
    model_ops m = fake;
    m.kinds = stray;
    m.n_kinds = 1;
    cn_error err = {0};
    CHECK(plan_order_init(&order, &m, &err) == CN_ERR_RUNTIME);
    CHECK_TEXT(err.msg, "model 'fake': event kind 'move' reads or writes flow 3, but the "
                        "model declares 3 flows");
    /* the models of the table: their declarations pass, and the flood's order of a window
     * (move and bin per device, then transmit per partition) too */
    const char *names[] = {"flood", "phold"};
    for (int i = 0; i < 2; i++) {
        const model_ops *ops = model_find(names[i]);
        cn_error e = {0};
        CHECK(ops && plan_order_init(&order, ops, &e) == 0);
        CHECK_TEXT(e.msg, "");
    }
    const model_ops *flood = model_find("flood");
    if (!flood)
        return;
    CHECK(plan_order_init(&order, flood, &err) == 0);
    static window_plan plan;
    const int k[] = {0, 0, 1, 1, 2, 2, 2}, p[] = {0, 1, 0, 1, 0, 1, 2};
    plan_of(&plan, k, p, 7);
    cn_error e = {0};
    CHECK(plan_order_check(&order, &plan, &e) == 0);
    const int wrong[] = {0, 1, 2, 0}, q[] = {0, 0, 0, 1};
    plan_of(&plan, wrong, q, 4);
    CHECK(plan_order_check(&order, &plan, &e) == CN_ERR_RUNTIME);
}

int main(void)
{
    test_orders();
    test_declarations();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
