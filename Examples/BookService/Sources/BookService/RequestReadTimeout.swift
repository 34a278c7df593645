#if FirePackHummingbird
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body is not complete within `timeout` of its head.
///
/// Hummingbird's idle timeout covers connections that send nothing, and request heads that never complete (the
/// HTTP decoder passes a head on only once it is whole); this covers a body sent a byte at a time. Together they keep
/// a few hundred slow or silent clients from holding the service's connections (BookServiceTests, "slow clients").
final class RequestReadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}
#endif
