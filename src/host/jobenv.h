/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib-hook --job-env: the environment a job's RDMA clients need on this host
 * (NCCL, UCX), from the managed ports that are RDMA ports, as shell export
 * lines (what a Slurm TaskProlog prints) or JSON. Read-only, any user.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ibh_config;

/* one managed RDMA port, as the job's environment sees it */
struct ibh_job_port {
	char ifname[IF_NAMESIZE];
	char dev[64];
	uint32_t port;
	char state[32];	     /* "ACTIVE", as sysfs names it; "?" unread */
	char link_layer[16]; /* "Ethernet" (RoCE), "InfiniBand"; "?" unread */
	bool up;	     /* the link is up */
	/* RoCE: the RoCE v2 GID index of its first managed IPv4 address (else IPv6); -1 none */
	int gid_index;
	bool used; /* up and ACTIVE: named in the environment */
};

/* what the job is told, from the ports */
struct ibh_job_env {
	size_t n_used;
	/* one index serves every RoCE port used (-1: none does, or no RoCE port) */
	int gid_index;
	bool roce;	    /* a RoCE port is used */
	char hca[1024];	    /* NCCL_IB_HCA: "=dev:port,..." (exact names) */
	char devices[1024]; /* UCX_NET_DEVICES: "dev:port,..." */
	char ifnames[1024]; /* NCCL_SOCKET_IFNAME: "=if,..." */
};

/* sorts ports by device (mlx5_2 before mlx5_10) and port, and decides what the job is told */
void jobenv_decide(struct ibh_job_port *ports, size_t n, struct ibh_job_env *ret);
/* prints the environment of a job; 0, 1 when no managed RDMA port can be used, or -errno */
int jobenv_print(const struct ibh_job_port *ports, size_t n, bool json, FILE *out);
/* the managed RDMA ports (of ifnames, when given) as the kernel has them, printed */
int jobenv_run(const struct ibh_config *c, const char *const *ifnames, size_t n_ifnames, bool json,
	       FILE *out);
