package dev.ringmaster.webhook.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * One TLS connection driven byte by byte: for keep-alive across a certificate rotation, and for
 * clients that stall. HTTP/1.1, responses with a Content-Length only (which is what the server sends).
 */
public final class RawConnection implements AutoCloseable {

    /** A response read off the connection. */
    public record Response(int status, Map<String, String> headers, String body) {
    }

    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawConnection(SSLContext context, int port, String... protocols) throws IOException {
        socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        if (protocols.length > 0) {
            socket.setEnabledProtocols(protocols);
        }
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public String protocol() {
        return socket.getSession().getProtocol();
    }

    /** The serial number of the certificate this connection's session was established with. */
    public BigInteger serverSerial() throws IOException {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }

    /** Sends one AdmissionReview POST and reads its response on this connection. */
    public Response review(String path, String body) throws IOException {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        write("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + content.length + "\r\n\r\n");
        out.write(content);
        out.flush();
        return read();
    }

    public void write(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    public Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); line != null && !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    /** Whether the server closes the connection within {@code timeout}, reading (and dropping) what it sends. */
    public boolean closedWithin(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                if (in.read() < 0) {
                    return true;
                }
            }
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset or TLS close: closed all the same
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                return line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.US_ASCII);
            }
            line.write(next);
            previous = next;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
