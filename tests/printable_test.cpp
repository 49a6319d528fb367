#include <doctest/doctest.h>

#include "io/printable.hpp"
#include "io/xml_escape.hpp"

using namespace pipeplan;

TEST_CASE("control characters reach the terminal as visible escapes") {
  CHECK(printable("zbh1") == "zbh1");
  CHECK(printable("a\nb\tc") == "a\nb\tc");
  CHECK(printable("\x1b[2J\x07\x7f") == "\\x1b[2J\\x07\\x7f");
  CHECK(printable("\xc2\x9b"
                  "31m") == "\\u009b31m");                             // C1 CSI, as UTF-8
  CHECK(printable("caf\xc3\xa9 \xc2\xa0") == "caf\xc3\xa9 \xc2\xa0");  // UTF-8 letters and U+00A0 stay
}

TEST_CASE("XML gets entities, and the control characters it forbids as U+FFFD") {
  CHECK(xml_escape("a<b>&\"c\"") == "a&lt;b&gt;&amp;&quot;c&quot;");
  CHECK(xml_escape("x\x01y\x1b") == "x\xef\xbf\xbdy\xef\xbf\xbd");
  CHECK(xml_escape("a\tb\nc\rd") == "a\tb\nc\rd");
}
