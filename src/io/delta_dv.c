/*
 * delta_dv.c - deletion vectors of a Delta table (PROTOCOL.md "Deletion
 * Vectors", "Deletion Vector Format"), Z85 and URI decoding.
 *
 * The 32-bit Roaring buckets are CRoaring's (Debian libroaring-dev, 0.2.66:
 * roaring_bitmap_portable_deserialize_safe/_size; that version has no
 * 64-bit bitmap, so the bucket array around them is read here).  The
 * checksum is zlib's crc32.
 */
#include "io/delta_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <roaring/roaring.h>
#include <zlib.h>

#include "core/text.h"

/* "Deletion Vector Format": the RoaringBitmapArray's magic number. */
#define DV_MAGIC 1681511377u

/* Z85's alphabet (ZeroMQ RFC 32), which "Deletion Vector Descriptor
 * Schema" names for inline bitmaps and the UUIDs of `u` descriptors. */
static const char z85_chars[] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

int rk_delta_z85_decode(const char *s, size_t len, unsigned char *out)
{
	static signed char value[256];
	static bool ready;

	if (!ready) {
		memset(value, -1, sizeof value);
		for (int i = 0; z85_chars[i]; i++)
			value[(unsigned char)z85_chars[i]] = (signed char)i;
		ready = true;
	}
	if (len % 5)
		return -1;
	for (size_t i = 0; i < len; i += 5) {
		uint64_t v = 0;

		for (size_t j = 0; j < 5; j++) {
			int d = value[(unsigned char)s[i + j]];

			if (d < 0)
				return -1;
			v = v * 85 + (uint64_t)d;
		}
		if (v > UINT32_MAX)
			return -1;
		for (int b = 3; b >= 0; b--) {
			*out++ = (unsigned char)(v >> (8 * b));
		}
	}
	return 0;
}

int rk_delta_uri_decode(const char *s, rk_buf *out)
{
	for (; *s; s++) {
		if (*s != '%') {
			rk_buf_putc(out, *s);
			continue;
		}
		int hi = rk_hexval(s[1]), lo = hi < 0 ? -1 : rk_hexval(s[2]);

		if (hi < 0 || lo < 0)
			return -1;
		rk_buf_putc(out, (char)(hi * 16 + lo));
		s += 2;
	}
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int rk_delta_dv_bitmap_parse(const unsigned char *p, size_t len, const char *what, uint64_t **rows, size_t *n,
                             rk_error *err)
{
	uint64_t nbuckets, cap = 0, count = 0;
	uint64_t *out = NULL;
	size_t at = 12;
	int64_t last_key = -1;

	*rows = NULL;
	*n = 0;
	if (len < 12 || le32(p) != DV_MAGIC)
		return rk_error_set(err, RK_EXIT_RUNTIME,
		                    "deletion vector %s: not a RoaringBitmapArray (no magic number %u)", what,
		                    DV_MAGIC);
	nbuckets = (uint64_t)le32(p + 4) | (uint64_t)le32(p + 8) << 32;
	for (uint64_t b = 0; b < nbuckets; b++) {
		roaring_bitmap_t *bm;
		size_t size;
		uint64_t card;
		uint32_t key;

		if (len - at < 4)
			goto truncated;
		key = le32(p + at);
		at += 4;
		/* "every key has a 0 as its most significant bit", ascending */
		if ((key & 0x80000000u) || (int64_t)key <= last_key) {
			free(out);
			return rk_error_set(err, RK_EXIT_RUNTIME,
			                    "deletion vector %s: bucket key %u out of order or negative", what, key);
		}
		last_key = key;
		size = roaring_bitmap_portable_deserialize_size((const char *)p + at, len - at);
		if (size == 0)
			goto truncated;
		bm = roaring_bitmap_portable_deserialize_safe((const char *)p + at, len - at);
		if (!bm)
			goto truncated;
		at += size;
		card = roaring_bitmap_get_cardinality(bm);
		if (count + card > cap) {
			cap = (count + card) * 2;
			out = rk_xrealloc(out, cap * sizeof *out);
		}
		uint32_t *low = rk_xmalloc((card ? card : 1) * sizeof *low);

		roaring_bitmap_to_uint32_array(bm, low);
		roaring_bitmap_free(bm);
		/* CRoaring 0.2.66 takes an array container's values as they
		 * come: unsorted or repeated ones are a damaged bitmap, not a
		 * set of rows */
		for (uint64_t i = 0; i < card; i++) {
			if (i && low[i] <= low[i - 1]) {
				free(low);
				free(out);
				return rk_error_set(err, RK_EXIT_RUNTIME,
				                    "deletion vector %s: bucket %u holds row numbers out of order or "
				                    "repeated",
				                    what, key);
			}
			out[count++] = (uint64_t)key << 32 | low[i];
		}
		free(low);
	}
	if (at != len) {
		free(out);
		return rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector %s: %zu bytes after the last bucket", what,
		                    len - at);
	}
	*rows = out;
	*n = (size_t)count;
	return 0;
truncated:
	free(out);
	return rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector %s: truncated or malformed Roaring bitmap", what);
}

int rk_delta_dv_unique_id(json_t *dv, rk_buf *out)
{
	const char *type = json_string_value(json_object_get(dv, "storageType"));
	const char *where = json_string_value(json_object_get(dv, "pathOrInlineDv"));
	json_t *offset = json_object_get(dv, "offset");

	if (!type || !where)
		return -1;
	rk_buf_puts(out, type);
	rk_buf_puts(out, where);
	if (json_is_integer(offset))
		rk_buf_printf(out, "@%lld", (long long)json_integer_value(offset));
	return 0;
}

/* The file of a `u` descriptor: "<random prefix>/deletion_vector_<uuid>.bin"
 * under the table root, the UUID being the last 20 Z85 characters. */
static int u_path(const char *root, const char *where, rk_buf *out)
{
	size_t len = strlen(where);
	unsigned char u[16];

	if (len < 20 || rk_delta_z85_decode(where + len - 20, 20, u) < 0)
		return -1;
	rk_buf_printf(out, "%s/", root);
	if (len > 20) {
		rk_buf_append(out, where, len - 20);
		rk_buf_putc(out, '/');
	}
	rk_buf_printf(out,
	              "deletion_vector_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x.bin",
	              u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
	              u[15]);
	return 0;
}

/* Reads exactly n bytes at off; 0, or -1 with errno (0 for end of file). */
static int read_at(int fd, unsigned char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t r = pread(fd, p, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = 0;
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

/* "Deletion Vector File Storage Format": at offset, the size (big endian),
 * the bitmap, its CRC-32 (big endian); byte 0 of the file is the format
 * version, 1. */
static int load_file(const char *path, int64_t offset, int64_t size, unsigned char **data, rk_error *err)
{
	unsigned char head[4], version;
	unsigned char *p;
	int fd;

	*data = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector file %s: %s", path, strerror(errno));
	if (read_at(fd, &version, 1, 0) < 0 || version != 1) {
		close(fd);
		return rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector file %s: format version %d, expected 1",
		                    path, errno ? -1 : (int)version);
	}
	if (read_at(fd, head, 4, offset) < 0) {
		close(fd);
		return rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector file %s: cannot read at offset %lld: %s",
		                    path, (long long)offset, errno ? strerror(errno) : "end of file");
	}
	if ((int64_t)be32(head) != size) {
		close(fd);
		return rk_error_set(err, RK_EXIT_RUNTIME,
		                    "deletion vector file %s at offset %lld: size %u, the log says %lld", path,
		                    (long long)offset, be32(head), (long long)size);
	}
	p = rk_xmalloc((size_t)size + 4);
	if (read_at(fd, p, (size_t)size + 4, offset + 4) < 0) {
		close(fd);
		free(p);
		return rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector file %s: truncated at offset %lld", path,
		                    (long long)offset);
	}
	close(fd);
	uint32_t crc = (uint32_t)crc32(0L, p, (uInt)size), stored = be32(p + size);

	if (crc != stored) {
		free(p);
		return rk_error_set(err, RK_EXIT_RUNTIME,
		                    "deletion vector file %s at offset %lld: CRC-32 %08x, stored %08x: the file is "
		                    "damaged",
		                    path, (long long)offset, (unsigned)crc, (unsigned)stored);
	}
	*data = p;
	return 0;
}

int rk_delta_dv_load(const char *root, json_t *dv, uint64_t **rows, size_t *n, rk_error *err)
{
	const char *type = json_string_value(json_object_get(dv, "storageType"));
	const char *where = json_string_value(json_object_get(dv, "pathOrInlineDv"));
	json_t *joff = json_object_get(dv, "offset"), *jsize = json_object_get(dv, "sizeInBytes");
	json_t *jcard = json_object_get(dv, "cardinality");
	unsigned char *data = NULL;
	rk_buf path = RK_BUF_INIT;
	int64_t size = json_integer_value(jsize), offset = json_is_integer(joff) ? json_integer_value(joff) : 1;
	int rc = -1;

	*rows = NULL;
	*n = 0;
	if (!type || !where || !json_is_integer(jsize) || !json_is_integer(jcard) || size < 0)
		return rk_error_set(err, RK_EXIT_USAGE,
		                    "deletion vector descriptor lacks storageType, pathOrInlineDv, sizeInBytes or "
		                    "cardinality");
	if (strcmp(type, "i") == 0) {
		size_t len = strlen(where);

		data = rk_xmalloc(len / 5 * 4 + 1);
		if (rk_delta_z85_decode(where, len, data) < 0 || (size_t)size > len / 5 * 4) {
			rk_error_set(err, RK_EXIT_RUNTIME, "inline deletion vector %.40s: not valid Z85 of %lld bytes",
			             where, (long long)size);
			goto out;
		}
		rc = rk_delta_dv_bitmap_parse(data, (size_t)size, "inline", rows, n, err);
	} else if (strcmp(type, "u") == 0 || strcmp(type, "p") == 0) {
		if (type[0] == 'u') {
			if (u_path(root, where, &path) < 0) {
				rk_error_set(err, RK_EXIT_RUNTIME,
				             "deletion vector %s: not a Z85-encoded UUID with an optional prefix", where);
				goto out;
			}
		} else {
			const char *p = where;

			if (strncmp(p, "file:", 5) != 0) {
				rk_error_set(err, RK_EXIT_USAGE,
				             "deletion vector %s: only file: URIs are readable (local files)", where);
				goto out;
			}
			p += 5;
			if (strncmp(p, "//", 2) == 0) {
				p += 2;
				if (*p != '/') { /* file://host/... */
					rk_error_set(err, RK_EXIT_USAGE,
					             "deletion vector %s: a file: URI with a host is not readable", where);
					goto out;
				}
			}
			if (rk_delta_uri_decode(p, &path) < 0) {
				rk_error_set(err, RK_EXIT_USAGE, "deletion vector %s: malformed %%-escape", where);
				goto out;
			}
		}
		if (load_file(rk_buf_cstr(&path), offset, size, &data, err) < 0)
			goto out;
		rc = rk_delta_dv_bitmap_parse(data, (size_t)size, rk_buf_cstr(&path), rows, n, err);
	} else {
		rk_error_set(err, RK_EXIT_USAGE, "deletion vector storage type '%s' is not one of u, p, i", type);
		goto out;
	}
	if (rc == 0 && (int64_t)*n != json_integer_value(jcard)) {
		rk_error_set(err, RK_EXIT_RUNTIME, "deletion vector %s: %zu rows, the log says cardinality %lld",
		             path.len ? rk_buf_cstr(&path) : "inline", *n, (long long)json_integer_value(jcard));
		free(*rows);
		*rows = NULL;
		*n = 0;
		rc = -1;
	}
out:
	free(data);
	rk_buf_free(&path);
	return rc;
}
