// bench/rapidjson_sax.cpp - the reference for bench/run.sh: RapidJSON's SAX parser
// (rapidjson::Reader, Debian package rapidjson-dev) only parsing a JSON file, with a
// handler that counts what it sees and builds nothing. tracedoc's `report` is measured
// against this: parsing alone, no model, no analysis.
//
//   g++ -O2 -o rapidjson_sax bench/rapidjson_sax.cpp
//   rapidjson_sax FILE            prints: objects arrays strings numbers keys bytes
//
// The file is mapped (mmap; pages fault in as the parser reads them) and parsed from a
// rapidjson::StringStream with kParseDefaultFlags (numbers are fully converted to
// int64/double, strings checked, as RapidJSON always does). StringStream is the stream
// RapidJSON's SIMD whitespace skipping works on (built with -DRAPIDJSON_SSE42 by
// bench/run.sh); it needs a NUL after the data, which mmap gives (the rest of the last
// page is zero) unless the size is a multiple of the page size: then the file is read
// into a buffer instead. Exit status 1 on a parse error.
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Counter : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Counter> {
    uint64_t objects = 0, arrays = 0, strings = 0, numbers = 0, keys = 0, other = 0;
    uint64_t depth = 0, events = 0; // objects opened at depth 2: the traceEvents entries

    bool Null() { other++; return true; }
    bool Bool(bool) { other++; return true; }
    bool Int(int) { numbers++; return true; }
    bool Uint(unsigned) { numbers++; return true; }
    bool Int64(int64_t) { numbers++; return true; }
    bool Uint64(uint64_t) { numbers++; return true; }
    bool Double(double) { numbers++; return true; }
    bool String(const char *, rapidjson::SizeType, bool) { strings++; return true; }
    bool Key(const char *, rapidjson::SizeType, bool) { keys++; return true; }
    bool StartObject()
    {
        objects++;
        if (++depth == 3)
            events++; // {"traceEvents": [ {event} ... ]}: an event is an object at depth 3
        return true;
    }
    bool EndObject(rapidjson::SizeType) { depth--; return true; }
    bool StartArray() { arrays++; depth++; return true; }
    bool EndArray(rapidjson::SizeType) { depth--; return true; }
};

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: rapidjson_sax FILE.json\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        std::perror(argv[1]);
        return 2;
    }
    size_t n = (size_t)st.st_size;
    long page = sysconf(_SC_PAGESIZE);
    int mapped = n % (size_t)page != 0;
    char *data;
    if (mapped) {
        data = static_cast<char *>(mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0));
        if (data == MAP_FAILED) {
            std::perror("mmap");
            return 2;
        }
        madvise(data, n, MADV_SEQUENTIAL);
    } else {
        data = static_cast<char *>(std::malloc(n + 1));
        size_t got = 0;
        while (data && got < n) {
            ssize_t r = read(fd, data + got, n - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (!data || got != n) {
            std::perror(argv[1]);
            return 2;
        }
        data[n] = 0;
    }
    rapidjson::StringStream ss(data);
    rapidjson::Reader reader;
    Counter h;
    rapidjson::ParseResult ok = reader.Parse<rapidjson::kParseDefaultFlags>(ss, h);
    if (!ok) {
        std::fprintf(stderr, "%s: byte %zu: %s\n", argv[1], ok.Offset(),
                     rapidjson::GetParseError_En(ok.Code()));
        return 1;
    }
    std::printf("events %llu objects %llu arrays %llu strings %llu numbers %llu keys %llu "
                "other %llu bytes %zu\n",
                (unsigned long long)h.events, (unsigned long long)h.objects,
                (unsigned long long)h.arrays, (unsigned long long)h.strings,
                (unsigned long long)h.numbers, (unsigned long long)h.keys,
                (unsigned long long)h.other, n);
    if (mapped)
        munmap(data, n);
    else
        std::free(data);
    close(fd);
    return 0;
}
