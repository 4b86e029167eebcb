// The element's properties (filter, compat, device, gpu-id, kernel): their GObject specs, and
// their reading and writing into the element's ElementSettings under the object lock. A filter
// string is compiled and checked as it is set: refused (the previous one kept) with its reason.
#pragma once

#include <gst/gst.h>

namespace vf::element {

// Installs the properties on the element's class (class_init).
void install_properties(GObjectClass* object_class);

// GObject's set_property and get_property of the element.
void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec);
void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec);

}  // namespace vf::element
