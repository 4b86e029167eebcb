#include "encode/clip_file.hpp"

#include <cmath>
#include <ctime>
#include <filesystem>

#include "common/error.hpp"
#include "encode/owned_files.hpp"

namespace vf {

namespace {

[[noreturn]] void clip_error(const std::string& path, const std::string& what, int err) {
    fail(ErrorCategory::Output, "clip '" + path + "': " + what + ": " + av_error_string(err));
}

}  // namespace

std::string clips_folder(const std::string& output_path, const std::string& stream) {
    const std::filesystem::path folder = std::filesystem::path(output_path).parent_path();
    return ((folder.empty() ? std::filesystem::path(".") : folder) / "clips" / stream).string();
}

std::string clip_extension(const std::string& output_path) {
    const std::string ext = std::filesystem::path(output_path).extension().string();
    for (const char* kept : {".mp4", ".mov", ".mkv"})
        if (ext == kept) return ext;
    return ".mkv";
}

std::string clip_file_name(double unix_s, const std::string& kind, const std::string& extension) {
    const std::time_t t = static_cast<std::time_t>(std::floor(unix_s));
    std::tm utc{};
    gmtime_r(&t, &utc);
    char when[32];
    std::strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &utc);
    return std::string(when) + "-" + kind + extension;
}

ClipFile::ClipFile(std::string path, const PacketFormat& format)
    : path_(std::move(path)), partial_(path_ + ".partial"), time_base_(format.time_base), io_(false, false) {
    try {
        const AVOutputFormat* container = av_guess_format(nullptr, path_.c_str(), nullptr);
        if (!container) fail(ErrorCategory::Output, "clip '" + path_ + "': no container for its extension");
        int err = avformat_alloc_output_context2(&mux_, container, nullptr, partial_.c_str());
        if (err < 0) clip_error(path_, "creating the muxer", err);
        AVStream* s = avformat_new_stream(mux_, nullptr);
        if (!s) fail(ErrorCategory::Internal, "out of memory creating a clip's stream");
        if ((err = avcodec_parameters_copy(s->codecpar, format.parameters)) < 0) clip_error(path_, "stream setup", err);
        s->codecpar->codec_tag = 0;
        s->time_base = time_base_;
        io_.install(mux_);
        if ((err = io_.open(partial_, AVIO_FLAG_WRITE, &mux_->pb)) < 0)
            fail(ErrorCategory::Output, io_.refusal().empty() ? "clip '" + path_ + "': cannot write: " + av_error_string(err) : io_.refusal());
        if ((err = avformat_write_header(mux_, nullptr)) < 0) clip_error(path_, "writing its header", err);
    } catch (...) {
        release();
        throw;
    }
}

ClipFile::~ClipFile() { release(); }

void ClipFile::release() {
    if (mux_) {
        if (mux_->pb) io_.close(mux_->pb);
        mux_->pb = nullptr;
        avformat_free_context(mux_);
        mux_ = nullptr;
    }
    if (!finished_) io_.files().remove_if_owned(partial_);
}

void ClipFile::write(const AVPacket& packet) {
    AvPacketPtr p = make_packet();
    VF_AV_CHECK(av_packet_ref(p.get(), &packet), ErrorCategory::Internal, "packet reference");
    if (origin_ == AV_NOPTS_VALUE) origin_ = p->dts != AV_NOPTS_VALUE ? p->dts : p->pts;
    if (p->pts != AV_NOPTS_VALUE) p->pts -= origin_;
    if (p->dts != AV_NOPTS_VALUE) p->dts -= origin_;
    // A muxer refuses timestamps that do not grow; an encoder's never go back, so this only
    // guards against a packet without one.
    if (p->dts == AV_NOPTS_VALUE) p->dts = last_dts_ == AV_NOPTS_VALUE ? 0 : last_dts_ + 1;
    if (last_dts_ != AV_NOPTS_VALUE && p->dts <= last_dts_) return;
    last_dts_ = p->dts;
    if (pending_) write_pending(p->dts);
    pending_ = std::move(p);
}

void ClipFile::write_pending(int64_t next_dts) {
    AVPacket* p = pending_.get();
    if (p->duration <= 0) p->duration = next_dts != AV_NOPTS_VALUE ? next_dts - p->dts : last_duration_;
    last_duration_ = p->duration;
    av_packet_rescale_ts(p, time_base_, mux_->streams[0]->time_base);
    p->stream_index = 0;
    p->pos = -1;
    const int err = av_write_frame(mux_, p);
    pending_.reset();
    if (err < 0) clip_error(path_, "writing", err);
    ++packets_;
}

std::string ClipFile::finish() {
    if (pending_) write_pending(AV_NOPTS_VALUE);
    int err = av_write_trailer(mux_);
    if (err < 0) clip_error(path_, "writing its trailer", err);
    AVIOContext* pb = mux_->pb;
    mux_->pb = nullptr;
    if ((err = io_.close(pb)) < 0) clip_error(path_, "closing", err);
    const std::string kept = move_without_replacing(partial_, path_, false);
    finished_ = true;
    release();
    return kept;
}

}  // namespace vf
