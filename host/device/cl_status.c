/* OpenCL status codes as names and as advice: a failed call is reported as one sentence that
 * says which call failed, on which device, and what that code usually means for the user. */
#include <stdarg.h>
#include <stddef.h>

#include "device/device.h"

struct status_info {
    cl_int code;
    const char *name;
    const char *meaning; /* what the user can usually make of it; NULL: nothing useful */
};

/* Every status of OpenCL 1.2, plus the few later or extension codes that drivers return to
 * 1.2 programs. Numbers are written out for the non-1.2 ones because the 1.2 headers that we
 * build against do not define them. */
static const struct status_info statuses[] = {
    {CL_SUCCESS, "CL_SUCCESS", NULL},
    {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND",
     "the platform has no device of the requested type"},
    {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE",
     "the device is busy, switched off or reserved by another process"},
    {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE",
     "the driver has no OpenCL C compiler, so clnetsim cannot build its kernels there"},
    {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE",
     "the device ran out of memory; try a smaller scenario or a device with more memory"},
    {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES",
     "the device ran out of memory or registers, or a kernel accessed memory out of bounds; "
     "try a smaller scenario or a smaller work-group size"},
    {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY", "the host ran out of memory"},
    {CL_PROFILING_INFO_NOT_AVAILABLE, "CL_PROFILING_INFO_NOT_AVAILABLE",
     "the driver gave no timing for this command"},
    {CL_MEM_COPY_OVERLAP, "CL_MEM_COPY_OVERLAP", "a copy overlapped itself (a clnetsim bug)"},
    {CL_IMAGE_FORMAT_MISMATCH, "CL_IMAGE_FORMAT_MISMATCH", NULL},
    {CL_IMAGE_FORMAT_NOT_SUPPORTED, "CL_IMAGE_FORMAT_NOT_SUPPORTED", NULL},
    {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE",
     "the kernels did not compile for this device; the build log says why"},
    {CL_MAP_FAILURE, "CL_MAP_FAILURE", "a buffer could not be mapped into host memory"},
    {CL_MISALIGNED_SUB_BUFFER_OFFSET, "CL_MISALIGNED_SUB_BUFFER_OFFSET", NULL},
    {CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
     "an earlier command that this one waited for had failed"},
    {CL_COMPILE_PROGRAM_FAILURE, "CL_COMPILE_PROGRAM_FAILURE",
     "the kernels did not compile for this device; the build log says why"},
    {CL_LINKER_NOT_AVAILABLE, "CL_LINKER_NOT_AVAILABLE", "the driver has no OpenCL linker"},
    {CL_LINK_PROGRAM_FAILURE, "CL_LINK_PROGRAM_FAILURE",
     "the kernels did not link for this device"},
    {CL_DEVICE_PARTITION_FAILED, "CL_DEVICE_PARTITION_FAILED", NULL},
    {CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE", NULL},
    {CL_INVALID_VALUE, "CL_INVALID_VALUE",
     "the driver rejected an argument (a clnetsim bug, or a driver limit)"},
    {CL_INVALID_DEVICE_TYPE, "CL_INVALID_DEVICE_TYPE", NULL},
    {CL_INVALID_PLATFORM, "CL_INVALID_PLATFORM", "the OpenCL platform is no longer valid"},
    {CL_INVALID_DEVICE, "CL_INVALID_DEVICE",
     "the device is no longer valid (was it removed or reset?)"},
    {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT", NULL},
    {CL_INVALID_QUEUE_PROPERTIES, "CL_INVALID_QUEUE_PROPERTIES",
     "the device does not support a profiling in-order queue"},
    {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE", NULL},
    {CL_INVALID_HOST_PTR, "CL_INVALID_HOST_PTR", NULL},
    {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT", NULL},
    {CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", NULL},
    {CL_INVALID_IMAGE_SIZE, "CL_INVALID_IMAGE_SIZE", NULL},
    {CL_INVALID_SAMPLER, "CL_INVALID_SAMPLER", NULL},
    {CL_INVALID_BINARY, "CL_INVALID_BINARY", "the program binary does not fit this device"},
    {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS",
     "the compiler rejected the build options (check the platform profile)"},
    {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM", NULL},
    {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE",
     "the program was not built for this device"},
    {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME", "the program has no kernel of that name"},
    {CL_INVALID_KERNEL_DEFINITION, "CL_INVALID_KERNEL_DEFINITION", NULL},
    {CL_INVALID_KERNEL, "CL_INVALID_KERNEL", NULL},
    {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX",
     "a kernel argument index is wrong (a clnetsim bug)"},
    {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE", "a kernel argument is wrong (a clnetsim bug)"},
    {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE",
     "a kernel argument has the wrong size (a clnetsim bug)"},
    {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS",
     "a kernel argument was not set (a clnetsim bug)"},
    {CL_INVALID_WORK_DIMENSION, "CL_INVALID_WORK_DIMENSION", NULL},
    {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE",
     "the work-group size does not fit this device or kernel; try another --work-group value"},
    {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE",
     "the work-group size is above the device's limit"},
    {CL_INVALID_GLOBAL_OFFSET, "CL_INVALID_GLOBAL_OFFSET", NULL},
    {CL_INVALID_EVENT_WAIT_LIST, "CL_INVALID_EVENT_WAIT_LIST", NULL},
    {CL_INVALID_EVENT, "CL_INVALID_EVENT", NULL},
    {CL_INVALID_OPERATION, "CL_INVALID_OPERATION", "the driver does not allow this operation here"},
    {CL_INVALID_GL_OBJECT, "CL_INVALID_GL_OBJECT", NULL},
    {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE",
     "a buffer is larger than the device's largest allocation; try a smaller scenario"},
    {CL_INVALID_MIP_LEVEL, "CL_INVALID_MIP_LEVEL", NULL},
    {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE",
     "the launch is larger than the device allows"},
    {CL_INVALID_PROPERTY, "CL_INVALID_PROPERTY", NULL},
    {CL_INVALID_IMAGE_DESCRIPTOR, "CL_INVALID_IMAGE_DESCRIPTOR", NULL},
    {CL_INVALID_COMPILER_OPTIONS, "CL_INVALID_COMPILER_OPTIONS",
     "the compiler rejected the build options (check the platform profile)"},
    {CL_INVALID_LINKER_OPTIONS, "CL_INVALID_LINKER_OPTIONS", NULL},
    {CL_INVALID_DEVICE_PARTITION_COUNT, "CL_INVALID_DEVICE_PARTITION_COUNT", NULL},
    /* OpenCL 2.x and 3.0 codes, seen when a newer driver answers. */
    {-69, "CL_INVALID_PIPE_SIZE", NULL},
    {-70, "CL_INVALID_DEVICE_QUEUE", NULL},
    {-71, "CL_INVALID_SPEC_ID", NULL},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED", NULL},
    /* Extensions that the ICD loader itself returns. */
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR", NULL},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR",
     "no OpenCL driver is installed (on Debian, apt-get install pocl-opencl-icd gives a CPU "
     "device)"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT", NULL},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT", NULL},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT", NULL},
    /* Not a standard code, but what the NVIDIA driver reports after a kernel fault. */
    {-9999, "unknown OpenCL status",
     "a kernel read or wrote outside its buffers (NVIDIA's unofficial code; a clnetsim bug)"},
};

static const struct status_info *find_status(cl_int status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i].code == status)
            return &statuses[i];
    return NULL;
}

const char *cl_status_name(cl_int status)
{
    const struct status_info *s = find_status(status);
    return s ? s->name : "unknown OpenCL status";
}

int device_fail(cn_error *err, const char *device_name, int code, const char *fmt, ...)
{
    int fresh = err && err->code == 0;
    va_list ap;
    va_start(ap, fmt);
    cn_vfail(err, code, fmt, ap);
    va_end(ap);
    if (fresh)
        err->device = device_name;
    return code;
}

int cl_check(cl_int status, const char *what, const char *device_name, cn_error *err)
{
    if (status == CL_SUCCESS)
        return 0;
    const struct status_info *s = find_status(status);
    const char *meaning = s && s->meaning ? s->meaning : "an error reported by the OpenCL driver";
    if (device_name && device_name[0])
        return device_fail(err, device_name, CN_ERR_RUNTIME, "%s failed on device '%s': %s (%d), %s",
                           what, device_name, cl_status_name(status), (int)status, meaning);
    return cn_fail(err, CN_ERR_RUNTIME, "%s failed: %s (%d), %s", what, cl_status_name(status),
                   (int)status, meaning);
}
