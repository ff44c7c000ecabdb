/* SPDX-License-Identifier: GPL-2.0 */
/*
 * setfs_probe: what the probe module exports to other modules (the KUnit
 * suite in kunit/).
 */
#ifndef _SETFS_PROBE_API_H
#define _SETFS_PROBE_API_H

#include <linux/types.h>

#include "setfs_probe_uapi.h"

size_t setfs_probe_size(void);

#endif /* _SETFS_PROBE_API_H */
