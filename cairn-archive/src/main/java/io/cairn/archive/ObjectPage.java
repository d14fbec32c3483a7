package io.cairn.archive;

import java.util.List;
import java.util.Optional;

/** One page of a listing; {@code nextPageToken} is empty on the last page. */
public record ObjectPage(List<ObjectInfo> objects, Optional<String> nextPageToken) {
    public ObjectPage {
        objects = List.copyOf(objects);
    }
}
