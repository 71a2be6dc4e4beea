package dev.ringmaster.ring.load;

/**
 * The work of the cells {@code first} to {@code last} (both included) of the {@value LoadReport#CELLS} equal cells
 * of the hash space, over a report's window.
 *
 * @param busy    seconds spent reconciling their objects per second of the window
 * @param objects their objects at the end of the window
 */
public record CellLoad(int first, int last, double busy, long objects) {

    public CellLoad {
        if (first < 0 || last >= LoadReport.CELLS || first > last) {
            throw new IllegalArgumentException("cells " + first + "-" + last + " are not from 0 to "
                    + (LoadReport.CELLS - 1) + ", first to last");
        }
        LoadReport.requireRate("busy time of cells " + first + "-" + last, busy);
        if (objects < 0) {
            throw new IllegalArgumentException("object count " + objects + " of cells " + first + "-" + last + " is negative");
        }
    }

    /** How many cells this covers. */
    public int width() {
        return last - first + 1;
    }
}
