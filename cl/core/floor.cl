#pragma OPENCL FP_CONTRACT OFF
/* The empty window (host/device/device_floor.c): one work-item stores the value it is given,
 * which the host reads back. A window of any model costs at least this launch and this
 * read-back: the device's floor, whatever the model does inside its windows. */
__kernel void window_floor(__global uint *word, uint value)
{
    if (get_global_id(0) == 0)
        word[0] = value;
}
