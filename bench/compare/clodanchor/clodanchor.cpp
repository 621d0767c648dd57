// clodanchor runs meshoptimizer's demo/clusterlod.h (built natively, from
// a meshoptimizer checkout outside this repository: see ../README.md
// "Cluster LOD") on one mesh, positions only, clodDefaultConfig(128), and
// writes the hierarchy for bench/compare to measure with the same Go code
// as meshcook's.
//
// usage: clodanchor MESH.bin OUT.bin RUNS
//   MESH.bin: u32 vertexCount, u32 indexCount, f32 positions[3·vc], u32 indices[ic] (trailing bytes ignored)
//   OUT.bin:  f64 median build ms (wall), f64 median build CPU ms (std::clock), u32 groupCount, per group {i32 depth, f32 center[3], f32 radius, f32 error},
//             u32 clusterCount, per cluster {i32 refined, u32 group, u32 indexCount, u32 indices[indexCount]}
#include "meshoptimizer.h"
#define CLUSTERLOD_IMPLEMENTATION
#include "clusterlod.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

struct OutCluster
{
	int refined;
	unsigned int group;
	std::vector<unsigned int> indices;
};

static bool readAll(const char* path, std::vector<unsigned char>& out)
{
	FILE* f = fopen(path, "rb");
	if (!f)
		return false;
	unsigned char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		out.insert(out.end(), buf, buf + n);
	fclose(f);
	return true;
}

template <typename T>
static void put(FILE* f, T v)
{
	fwrite(&v, sizeof(T), 1, f);
}

int main(int argc, char** argv)
{
	if (argc != 4)
	{
		fprintf(stderr, "usage: clodanchor MESH.bin OUT.bin RUNS\n");
		return 2;
	}
	std::vector<unsigned char> in;
	if (!readAll(argv[1], in) || in.size() < 8)
	{
		fprintf(stderr, "clodanchor: cannot read %s\n", argv[1]);
		return 1;
	}
	uint32_t vc, ic;
	memcpy(&vc, &in[0], 4);
	memcpy(&ic, &in[4], 4);
	if (in.size() < 8 + size_t(vc) * 12 + size_t(ic) * 4)
	{
		fprintf(stderr, "clodanchor: %s is short\n", argv[1]);
		return 1;
	}
	std::vector<float> pos(size_t(vc) * 3);
	std::vector<unsigned int> idx(ic);
	memcpy(pos.data(), &in[8], pos.size() * 4);
	memcpy(idx.data(), &in[8 + pos.size() * 4], idx.size() * 4);
	int runs = atoi(argv[3]);
	if (runs < 1)
		runs = 1;

	clodConfig config = clodDefaultConfig(128);
	clodMesh mesh = {};
	mesh.indices = idx.data();
	mesh.index_count = idx.size();
	mesh.vertex_count = vc;
	mesh.vertex_positions = pos.data();
	mesh.vertex_positions_stride = 12;

	std::vector<clodGroup> groups;
	std::vector<OutCluster> clusters;
	std::vector<double> ms, cpu;
	for (int r = 0; r < runs; ++r)
	{
		groups.clear();
		clusters.clear();
		std::clock_t c0 = std::clock();
		auto t0 = std::chrono::steady_clock::now();
		clodBuild(config, mesh, [&](clodGroup group, const clodCluster* cl, size_t count) -> int {
			unsigned int id = unsigned(groups.size());
			groups.push_back(group);
			for (size_t i = 0; i < count; ++i)
				clusters.push_back(OutCluster{cl[i].refined, id, std::vector<unsigned int>(cl[i].indices, cl[i].indices + cl[i].index_count)});
			return int(id);
		});
		auto t1 = std::chrono::steady_clock::now();
		std::clock_t c1 = std::clock();
		ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
		cpu.push_back(1000.0 * double(c1 - c0) / CLOCKS_PER_SEC);
	}
	std::sort(ms.begin(), ms.end());
	std::sort(cpu.begin(), cpu.end());

	FILE* f = fopen(argv[2], "wb");
	if (!f)
	{
		fprintf(stderr, "clodanchor: cannot write %s\n", argv[2]);
		return 1;
	}
	put<double>(f, ms[ms.size() / 2]);
	put<double>(f, cpu[cpu.size() / 2]);
	put<uint32_t>(f, uint32_t(groups.size()));
	for (const clodGroup& g : groups)
	{
		put<int32_t>(f, g.depth);
		put<float>(f, g.simplified.center[0]);
		put<float>(f, g.simplified.center[1]);
		put<float>(f, g.simplified.center[2]);
		put<float>(f, g.simplified.radius);
		put<float>(f, g.simplified.error);
	}
	put<uint32_t>(f, uint32_t(clusters.size()));
	for (const OutCluster& c : clusters)
	{
		put<int32_t>(f, c.refined);
		put<uint32_t>(f, c.group);
		put<uint32_t>(f, uint32_t(c.indices.size()));
		fwrite(c.indices.data(), 4, c.indices.size(), f);
	}
	fclose(f);
	return 0;
}
